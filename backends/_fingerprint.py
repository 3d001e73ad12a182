"""The built-in backends' fingerprints (``Backend.fingerprint``, keys of ``judge.fingerprint.KEYS``).

Each function reads what its library decides at run time, in the process that runs the kernels:
numpy's enabled SIMD dispatch targets (``NPY_DISABLE_CPU_FEATURES`` lowers them), torch's CPU
capability (``ATEN_CPU_CAPABILITY``) and the oneDNN ISA its JIT kernels reach, the CUDA device,
its compute capability and driver.
"""

from __future__ import annotations

import ctypes
import os


def numpy_facts() -> dict[str, str]:
    import ml_dtypes
    import numpy as np

    facts = {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__}
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    features = getattr(umath, "__cpu_features__", {})
    enabled = [t for t in getattr(umath, "__cpu_dispatch__", []) if features.get(t)]
    baseline = list(getattr(umath, "__cpu_baseline__", []))
    # The dispatch targets are listed from the lowest; numpy runs the highest one enabled.
    facts["cpu"] = enabled[-1] if enabled else (baseline[-1] if baseline else "baseline")
    facts["simd"] = " ".join(enabled) or "baseline only"
    return facts


# oneDNN's JIT ISAs from the highest, with the CPU flags each needs (as /proc/cpuinfo has them).
_ONEDNN_LADDER = (
    ("avx512_core_amx", ("amx_tile", "amx_bf16", "avx512_bf16")),
    ("avx512_core_bf16", ("avx512_bf16",)),
    ("avx512_core_vnni", ("avx512_vnni",)),
    ("avx512_core", ("avx512f", "avx512bw", "avx512vl")),
    ("avx2", ("avx2",)),
    ("sse41", ()),
)


def onednn_isa(flags: set[str]) -> str:
    """The ISA oneDNN's JIT picks: the highest the CPU has, capped by ``ONEDNN_MAX_CPU_ISA``
    (or ``DNNL_MAX_CPU_ISA``). Derived, since torch does not expose oneDNN's own query."""
    names = [name for name, _ in _ONEDNN_LADDER]
    cap = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "").lower()
    top = names.index(cap) if cap in names else 0
    for name, needs in _ONEDNN_LADDER[top:]:
        if all(f in flags for f in needs):
            return name
    return names[-1]


def torch_cpu_facts() -> dict[str, str]:
    import torch

    from judge.fingerprint import host_facts

    return {
        "torch": torch.__version__,
        "cpu": torch.backends.cpu.get_cpu_capability(),
        "onednn_isa": (onednn_isa(set(host_facts()["cpu_flags"].split()))
                       if torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled
                       else "off"),
        "threads": str(torch.get_num_threads()),
    }


def torch_cuda_facts() -> dict[str, str]:
    import torch

    major, minor = torch.cuda.get_device_capability(0)
    return {"torch": torch.__version__, "cuda": str(torch.version.cuda),
            "gpu": torch.cuda.get_device_name(0), "compute_capability": f"{major}.{minor}",
            "driver": nvidia_driver()}


def cupy_facts() -> dict[str, str]:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    runtime = cupy.cuda.runtime.runtimeGetVersion()
    return {"cupy": cupy.__version__, "cuda": f"{runtime // 1000}.{runtime % 1000 // 10}",
            "gpu": name, "compute_capability": f"{props['major']}.{props['minor']}",
            "driver": nvidia_driver()}


def nvidia_driver() -> str:
    """The NVIDIA driver's version, from NVML (part of the driver); "unknown" without it."""
    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
        if nvml.nvmlInit_v2() != 0:
            return "unknown"
        buf = ctypes.create_string_buffer(96)
        ok = nvml.nvmlSystemGetDriverVersion(buf, 96) == 0
        nvml.nvmlShutdown()
        return buf.value.decode() if ok else "unknown"
    except (OSError, AttributeError):
        return "unknown"
