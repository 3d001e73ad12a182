"""The ``cupy`` backend: cupy's ufuncs and reductions on a CUDA device.

The numpy-API OpKind table (``_xp_ops.XP_TABLE``) runs with ``cupy`` as the array module, so
each OpKind calls cupy's own kernel (cupy.remainder, cupy.argmax, cupy.sum with an f32
accumulator for halves, ...). Erf comes from ``cupyx.scipy.special.erf``; the NaN-ignoring max
and min reductions are ``cupy.nanmax``/``cupy.nanmin``; the accumulating scatters
``cupyx.scatter_add`` (atomic adds: the order of repeated indices varies from run to run). cupy has no bfloat16 dtype: BF16
operands are widened to f32 by a CUDA kernel over their bit patterns, computed in f32 and
narrowed with round-to-nearest-even (``_cupy_bf16``).
"""

from __future__ import annotations

from backends._common import BIT_COPIES, check_dtypes, in_place, make_op_call, store_outputs
from judge.api import Backend, allocation_window, is_resident


def _cupy_lib():
    import cupy
    import cupyx.scipy.special

    from backends._xp_ops import XpLib

    def nan_extremum(x, axes, keepdims, which, initial=False):
        # cupy's nanmax/nanmin are its documented NaN-ignoring extrema; an all-NaN lane gives
        # NaN. With ``initial`` the fold starts from -inf (max) / +inf (min), as a contract may
        # state, so such a lane gives that start value (cupy's reductions take no initial=).
        fn = cupy.nanmax if which == "max" else cupy.nanmin
        result = fn(x, axis=axes, keepdims=keepdims)
        if initial:
            start = result.dtype.type(-cupy.inf if which == "max" else cupy.inf)
            result = cupy.where(cupy.isnan(result), start, result)
        return result

    return XpLib(name="cupy", xp=cupy, erf64=cupyx.scipy.special.erf, nan_extremum=nan_extremum,
                 add_at=cupyx.scatter_add)


def upload(arg, *, widen: bool = True):
    """A cupy view of ``arg``: its whole base on the device, viewed with the executor's strides
    (BF16 widened to float32, or left as its uint16 bits where ``widen`` is false)."""
    import cupy
    import numpy as np

    from backends import _cupy_bf16

    if is_resident(arg):  # already on the device: shared, not copied
        device_base = cupy.from_dlpack(arg.base)
        if arg.dtype == "BF16":
            device_base = device_base.view(cupy.uint16)
    else:
        host = arg.base.view(np.uint16) if arg.dtype == "BF16" else arg.base
        # the base with the bytes around it (judge.api.allocation_window: the executor's guards),
        # so a kernel reading past either end reads the poison there
        window, start = allocation_window(host) if host.size else (None, 0)
        device_base = (cupy.asarray(window)[start:start + host.nbytes].view(host.dtype) if window is not None
                       else cupy.asarray(host))
    if arg.size == 0:
        view = cupy.empty(arg.shape, dtype=device_base.dtype)
    else:
        item = device_base.itemsize
        view = cupy.lib.stride_tricks.as_strided(
            device_base[arg.offset :],
            shape=arg.shape,
            strides=tuple(s * item for s in arg.strides),
        )
    return _cupy_bf16.widen(view) if arg.dtype == "BF16" and widen else view


def download(result, dtype: str, *, narrow: bool = True):
    """``result`` as a host numpy array of FKC dtype ``dtype`` (BF16 narrowed on the device, or
    already its uint16 bits where ``narrow`` is false)."""
    import cupy

    from backends import _cupy_bf16
    from numerics.formats import get_format

    if dtype == "BF16":
        bits = _cupy_bf16.narrow(result) if narrow else result
        return cupy.asnumpy(bits).view(get_format("BF16").numpy_dtype)
    return cupy.asnumpy(result)


def cupy_contiguous(result):
    import cupy

    return cupy.ascontiguousarray(result)


def resident(arg):
    """``arg`` on the device as a plain array when it is contiguous from the start of its
    buffer (what a dispatcher hands a kernel), else as the adapter's strided view."""
    if arg.dtype == "BF16" or not arg.is_contiguous() or arg.base.size != arg.size:
        return upload(arg)
    import cupy

    return cupy.asarray(arg.base).reshape(arg.shape)


class CupyBackend(Backend):
    name = "cupy"
    device = "cuda"
    device_arrays = "dlpack"  # BF16 results are narrowed on the host, so they come back as numpy

    def available(self) -> bool | str:
        try:
            import cupy
        except ImportError:
            return "cupy is not installed"
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # noqa: BLE001 - cupy raises its own runtime error types
            return f"no CUDA device: cupy {cupy.__version__} cannot reach the driver ({exc})"
        if count == 0:
            return f"no CUDA device: cupy {cupy.__version__} sees 0 devices"
        return True

    def context_lost(self) -> bool:
        import cupy

        try:
            cupy.cuda.runtime.deviceSynchronize()  # a sticky error is raised again here
        except Exception:  # noqa: BLE001 - any error here means the context cannot be used
            return True
        return False

    def supports(self, contract, dtypes) -> bool | str:
        from backends._xp_cast import cupy_cast_support
        from backends._xp_ops import XP_TABLE

        if in_place(contract):
            return "the cupy adapter wires no in-place kernels yet (it runs out-of-place contracts)"
        ok = check_dtypes(contract.op_kind, dtypes, library="cupy", wired=XP_TABLE)
        return ok if ok is not True else cupy_cast_support(contract, dtypes)

    def run(self, contract, call):
        import numpy as np

        from backends._xp_ops import XP_TABLE, XpEnv
        from numerics.formats import get_format

        op = make_op_call(contract, call)
        t = get_format(op.dtype).numpy_dtype
        compute = np.dtype(np.float32) if op.dtype == "BF16" else t
        # Data movement copies bits: BF16 (which cupy lacks) moves as its uint16 patterns, as a
        # byte-level kernel does; widening it to float32 and back would quiet signalling NaNs.
        bits = op.op_kind in BIT_COPIES and op.dtype == "BF16"
        if bits:
            t = compute = np.dtype(np.uint16)
        env = XpEnv(lib=_cupy_lib(), op=op, compute=compute, t=t)
        args = [upload(arg, widen=not bits) for arg in call.inputs]
        result = XP_TABLE[op.op_kind](env, args)
        if call.inputs and is_resident(call.inputs[0]):
            if op.out_dtypes[0] != "BF16":
                return [cupy_contiguous(result)]  # stays on the device
            # narrowed on the host (cupy has no bfloat16), returned as numpy: a resident call's
            # output buffer is the caller's device array, which store_outputs cannot fill
            return [download(result, "BF16", narrow=not bits)]
        return store_outputs(call, [download(result, op.out_dtypes[0], narrow=not bits)])

    def describe(self) -> str:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        runtime = cupy.cuda.runtime.runtimeGetVersion()
        return f"cupy {cupy.__version__} (CUDA runtime {runtime}) on {name}"

    def fingerprint(self) -> dict[str, str]:
        from backends._fingerprint import cupy_facts

        return cupy_facts()

    def timed(self, contract, call):
        """The cupy call on arrays already on the device (``judge measure``)."""
        import cupy
        import numpy as np

        from backends._cupy_timing import CupyCall
        from backends._xp_ops import XP_TABLE, XpEnv
        from numerics.formats import get_format

        op = make_op_call(contract, call)
        t = get_format(op.dtype).numpy_dtype
        compute = np.dtype(np.float32) if op.dtype == "BF16" else t
        env = XpEnv(lib=_cupy_lib(), op=op, compute=compute, t=t)
        args = [resident(arg) for arg in call.inputs]
        entry = XP_TABLE[op.op_kind]
        bound = getattr(entry, "bound", None)  # the bare library call where the entry has one
        return CupyCall(cupy, bound(env, args) if bound else lambda: entry(env, args))

    def timed_copy(self, nbytes: int):
        import cupy

        from backends._cupy_timing import copy_call

        return copy_call(cupy, nbytes)


def backends() -> list[Backend]:
    return [CupyBackend()]
