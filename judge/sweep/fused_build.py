"""Building the fused sweeps' kernels: NVRTC (through cupy) for a CUDA device, the host C compiler
for the CPU twin (cached by source and macros), and why either cannot run here."""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path


def source(name: str = "fused_f32.cu") -> str:
    return resources.files("judge.sweep").joinpath(name).read_text()


def _source_dir() -> str:
    return str(resources.files("judge.sweep"))


def nvrtc_module(name: str, defs: dict[str, str]):
    """The kernel source ``name`` compiled by NVRTC (through cupy) with these macros."""
    import cupy

    options = ("-fmad=false", "-ftz=false", "-prec-div=true", "-prec-sqrt=true", "-std=c++17", f"-I{_source_dir()}", *(f"-D{k}={v}" for k, v in sorted(defs.items())))
    module = cupy.RawModule(code=source(name), options=options)
    module.compile()
    return module


def fused_unavailable(where: str) -> str | None:
    """Why the fused path cannot run on ``where``, or None."""
    if where == "cuda":
        try:
            import cupy

            cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # noqa: BLE001 — any failure to reach NVRTC/the device is a reason
            return f"the fused kernel is compiled through cupy's NVRTC, which is unavailable: {exc}"
        return None
    return None if _compiler() else "no C compiler (cc, gcc or clang) for the CPU twin"


def choose(where: str, fused: bool | None, notes: list[str], make, missing: str | None = None,
           what: str = "reference, certificate and scoring"):
    """The fused scorer ``make()`` builds, or None for the array passes: the one rule both sweeps
    follow. ``fused`` True demands it (a reason it cannot run is an error), False refuses it, None
    takes it on CUDA only. ``missing`` is a reason known beforehand (an OpKind with no fused
    kernel). Where the fused path was asked for or is the default and cannot run, a note says why."""
    if fused is False or (fused is None and where != "cuda"):
        return None
    why = missing or fused_unavailable(where)
    if why is None:
        try:
            scorer = make()
        except Exception as exc:  # noqa: BLE001 — a compiler's refusal is a reason, said below
            why = f"{type(exc).__name__}: {exc}"
        else:
            notes.append(f"fused: {what} in one pass per chunk ({where})")
            return scorer
    if fused:
        raise RuntimeError(f"the fused sweep cannot run: {why}")
    notes.append(f"array passes, not fused: {why}")
    return None


def _compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def _cache_dir() -> Path:
    root = os.environ.get("JUDGE_CACHE_DIR")
    base = Path(root) if root else Path(tempfile.gettempdir()) / f"judge-cache-{os.getuid()}"
    path = base / "kernels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def compile_twin(name: str, defs: dict[str, str], extra: tuple[str, ...] = ()) -> ctypes.CDLL:
    """The kernel source ``name`` compiled for this CPU (cached by source and macros)."""
    cc = _compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc, gcc or clang) for the fused sweep's CPU twin")
    headers = sorted(f.name for f in resources.files("judge.sweep").iterdir() if f.name.endswith(".h"))
    src = "\0".join([source(name), *(source(h) for h in headers)])
    flags = ["-O2", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math", "-std=c99", "-x", "c",
             f"-I{_source_dir()}", *(f"-D{k}={v}" for k, v in sorted(defs.items())), *extra]
    digest = hashlib.sha256((src + "\0" + " ".join(flags)).encode()).hexdigest()[:20]
    lib = _cache_dir() / f"twin-{digest}.so"
    if not lib.exists():
        tmp = lib.with_suffix(f".{os.getpid()}.tmp")
        c_file = lib.with_suffix(f".{os.getpid()}.c")
        c_file.write_text(source(name))
        done = subprocess.run([cc, *flags, str(c_file), "-o", str(tmp), "-lm"], capture_output=True, text=True)
        c_file.unlink(missing_ok=True)
        if done.returncode:
            raise RuntimeError(f"compiling the fused sweep's CPU twin failed:\n{done.stderr}")
        os.replace(tmp, lib)
    return ctypes.CDLL(str(lib))
