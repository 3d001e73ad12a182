"""The Vulkan backend: kompute (``kp``) running GLSL compute shaders.

Shaders are GLSL 450 (``shaders/*.comp``), compiled ahead of time with ``glslangValidator -V``
into ``spv/*.spv`` by ``scripts/compile-shaders.sh``; the shipped SPIR-V is what runs, so a
machine needs only a Vulkan driver and kp (``scripts/install-vulkan.sh``). A test checks that the
shipped SPIR-V equals a fresh compile whenever glslangValidator is present.

Dtypes: F32 is native float; F16 uses native 16-bit storage (``float16_t`` buffers via
GL_EXT_shader_16bit_storage) with f32 arithmetic; F64 is native double (shaderFloat64), but GLSL
has no double exp/log/sin/cos/tanh/pow, so those run in f32; BF16 is packed two lanes per uint32
word with f32 math and a round-to-nearest-even store. kp 0.9.0 enables no optional device
features, so the 16-bit-storage and Float64 capabilities are used without being requested;
lavapipe and the NVIDIA driver both run them.

Importing this package is cheap: kp is imported and the Vulkan device opened on first use.
"""

from __future__ import annotations


def backends() -> list:
    from backends.kompute.adapter import KomputeBackend

    return [KomputeBackend()]
