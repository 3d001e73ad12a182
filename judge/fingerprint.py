"""Environment fingerprints (SPEC §8): what decides a backend's bits, and scopes matched on it.

A backend's fingerprint is a flat ``{key: text}`` mapping: the versions of the libraries it calls,
the instruction set they dispatched to, the CPU, the GPU and its driver, the Vulkan device, its
driver and the float controls it reports. ``Backend.fingerprint()`` supplies the library's part
(probed in the backend's own child process, with the environment it runs under); the host's CPU
facts are added here, since every library's CPU code paths depend on them.

A known divergence may say where it holds (``where = { torch = ">=2.11,<2.14", cpu = "AVX512" }``).
``scope_matches`` decides it, key by key, always exactly:

- version keys take PEP 440 specifiers, read by ``packaging`` (``">=2.11,<2.14"``, ``"==2.13.0"``;
  a bare version means ``==``);
- ``cpu_flags`` takes flags that must all be present, ``"!flag"`` for one that must be absent;
- every other key takes one text or a list of texts, one of which must equal the value.

A key the fingerprint lacks never matches: a divergence scoped to a GPU does not hold on a CPU.
"""

from __future__ import annotations

import functools
import platform
from collections.abc import Mapping

#: key -> how a scope predicate on it is read ("version" | "flags" | "text"), with what it holds.
KEYS: dict[str, tuple[str, str]] = {
    "numpy": ("version", "numpy's version"),
    "ml_dtypes": ("version", "ml_dtypes' version"),
    "torch": ("version", "torch's version (local label included: 2.13.0+cpu)"),
    "cupy": ("version", "cupy's version"),
    "kp": ("version", "kompute's version"),
    "cuda": ("version", "the CUDA version the library runs on"),
    "driver": ("version", "the NVIDIA driver's version"),
    "vulkan_api": ("version", "the Vulkan API version the device reports"),
    "vulkan_driver_version": ("version", "the Vulkan driver's version (Mesa's for lavapipe)"),
    "cpu": ("text", "the instruction set the library dispatched to (torch: AVX512, AVX2, "
                    "DEFAULT; numpy: its highest enabled dispatch target, e.g. AVX512_ICL)"),
    "onednn_isa": ("text", "the oneDNN JIT ISA torch's CPU kernels reach (derived from the CPU "
                           "flags and ONEDNN_MAX_CPU_ISA)"),
    "simd": ("text", "numpy's enabled dispatch targets, space separated"),
    "threads": ("text", "the library's CPU thread count"),
    "cpu_model": ("text", "the host CPU's model name"),
    "cpu_flags": ("flags", "the host CPU's feature flags that change numerics"),
    "machine": ("text", "the host architecture (x86_64, aarch64)"),
    "gpu": ("text", "the CUDA device's name"),
    "compute_capability": ("text", "the CUDA device's compute capability (9.0)"),
    "vulkan_device": ("text", "the Vulkan device's name"),
    "vulkan_driver": ("text", "the Vulkan driver's name (NVIDIA, llvmpipe)"),
    "denorm_f16": ("text", "what the Vulkan driver does to F16 denormals: preserve, flush, "
                           "both (selectable) or none (neither is guaranteed)"),
    "denorm_f32": ("text", "likewise for F32"),
    "denorm_f64": ("text", "likewise for F64"),
    "rounding_f16": ("text", "the F16 rounding modes a shader can select: rte, rtz, both, none"),
    "rounding_f32": ("text", "likewise for F32"),
    "rounding_f64": ("text", "likewise for F64"),
}

#: CPU flags (as /proc/cpuinfo spells them) that change which kernels a library runs.
NUMERIC_FLAGS = (
    "sse4_2", "avx", "f16c", "fma", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
    "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_fp16", "asimd", "sve", "bf16",
)


class ScopeError(ValueError):
    """A ``where`` scope that cannot be read (unknown key, bad specifier)."""


@functools.cache
def host_facts() -> dict[str, str]:
    """The host CPU's model, numeric feature flags and architecture."""
    model, flags = "", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "Model", "cpu model") and not model:
                    model = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return {
        "cpu_model": model or platform.processor() or "unknown",
        "cpu_flags": " ".join(f for f in NUMERIC_FLAGS if f in flags),
        "machine": platform.machine(),
    }


def of_backend(backend) -> dict[str, str]:
    """``backend``'s fingerprint: the host's facts, then what the backend says of itself."""
    own = getattr(backend, "fingerprint", None)
    facts = dict(host_facts())
    if own is not None:
        facts.update({str(k): str(v) for k, v in (own() or {}).items() if v is not None})
    return facts


def check_scope(where: Mapping) -> None:
    """Raise ``ScopeError`` naming the first predicate that cannot be read."""
    from packaging.specifiers import InvalidSpecifier

    for key, predicate in where.items():
        if key not in KEYS:
            raise ScopeError(f"unknown fingerprint key {key!r} (known: {', '.join(sorted(KEYS))})")
        values = predicate if isinstance(predicate, list) else [predicate]
        if not values or not all(isinstance(v, str) and v for v in values):
            raise ScopeError(f"{key}: expected a text or a list of texts, got {predicate!r}")
        if KEYS[key][0] == "version":
            for v in values:
                try:
                    _specifier(v)
                except InvalidSpecifier:
                    raise ScopeError(f"{key}: {v!r} is not a PEP 440 version specifier "
                                     f"(for example '>=2.11,<2.14' or '==2.13.0')") from None


def scope_matches(where: Mapping | None, fingerprint: Mapping[str, str]) -> bool:
    """Whether every predicate of ``where`` holds for ``fingerprint`` (no scope: always)."""
    return all(_holds(key, predicate, fingerprint.get(key)) for key, predicate in (where or {}).items())


def describe_scope(where: Mapping | None) -> str:
    """``torch >=2.11,<2.14, cpu AVX512`` (or ``everywhere``)."""
    if not where:
        return "everywhere"
    parts = []
    for key, predicate in where.items():
        values = predicate if isinstance(predicate, list) else [predicate]
        parts.append(f"{key} {' or '.join(values)}")
    return ", ".join(parts)


def _holds(key: str, predicate, value: str | None) -> bool:
    if value is None:
        return False
    kind = KEYS.get(key, ("text", ""))[0]
    values = predicate if isinstance(predicate, list) else [predicate]
    if kind == "flags":
        present = set(value.split())
        return all((v[1:] not in present) if v.startswith("!") else (v in present) for v in values)
    if kind == "version":
        return any(_version_in(value, v) for v in values)
    return value in values


def _specifier(text: str):
    from packaging.specifiers import SpecifierSet

    text = text.strip()
    return SpecifierSet(text if text[:1] in "<>=!~" else f"=={text}")


def _version_in(value: str, specifier: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(value)
    except InvalidVersion:
        return False
    # PEP 440: a specifier without a local label ignores the value's (2.13.0+cpu is 2.13.0).
    return _specifier(specifier).contains(version, prereleases=True)
