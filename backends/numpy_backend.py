"""The ``numpy`` backend: numpy ufuncs and reductions, BF16 through ml_dtypes (device cpu).

Every OpKind calls numpy's own kernel (``_xp_ops.XP_TABLE``); BF16 arrays are
``ml_dtypes.bfloat16`` and use the ufunc loops ml_dtypes registers (f32 compute, RNE store).
numpy has no erf: ``ErfElementwise`` and ``GeluErfElementwise`` call the platform C library's
``erf`` through Python's ``math.erf`` (vectorised with ``numpy.frompyfunc``) on float64 values,
which is what the contracts describe (widen to f64, libm erf, narrow). numpy has no sigmoid
either: it is composed from ``numpy.exp`` in the contract's split form.
"""

from __future__ import annotations

from backends._common import (
    check_dtypes,
    in_place,
    make_op_call,
    other_inputs,
    store_outputs,
    writable_view,
)
from judge.api import Backend


def _numpy_lib():
    import math

    import numpy as np

    from backends._xp_ops import XpLib

    erf = np.frompyfunc(math.erf, 1, 1)

    def erf64(x):
        return np.asarray(erf(x), dtype=np.float64)

    def nan_extremum(x, axes, keepdims, which, initial=False):
        # numpy's fmax/fmin reductions are its documented NaN-ignoring extrema. Without an
        # initial value an all-NaN lane stays NaN and folding over no axes is the identity; with
        # ``initial`` the fold starts from -inf (max) / +inf (min), as a contract may state.
        ufunc = np.fmax if which == "max" else np.fmin
        if initial:
            start = x.dtype.type(-np.inf if which == "max" else np.inf)
            return ufunc.reduce(x, axis=axes, keepdims=keepdims, initial=start)
        return ufunc.reduce(x, axis=axes, keepdims=keepdims)

    return XpLib(name="numpy", xp=np, erf64=erf64, nan_extremum=nan_extremum, add_at=np.add.at)


class NumpyBackend(Backend):
    name = "numpy"
    device = "cpu"

    def available(self) -> bool | str:
        try:
            import ml_dtypes  # noqa: F401
            import numpy  # noqa: F401
        except ImportError as exc:
            return f"numpy backend needs numpy and ml_dtypes: {exc}"
        return True

    def supports(self, contract, dtypes) -> bool | str:
        from backends._xp_ops import XP_TABLE

        return check_dtypes(contract.op_kind, dtypes, library="numpy", wired=XP_TABLE)

    def run(self, contract, call):
        import numpy as np

        from backends._xp_ops import XP_TABLE, XpEnv
        from numerics.formats import get_format

        op = make_op_call(contract, call)
        t = get_format(op.dtype).numpy_dtype
        env = XpEnv(lib=_numpy_lib(), op=op, compute=t, t=t)
        if in_place(contract):  # the target is outputs[0], the operand's own memory
            args = [writable_view(call.outputs[0]), *(arg.view() for arg in other_inputs(contract, call))]
            with np.errstate(all="ignore"):
                XP_TABLE[op.op_kind](env, args)
            return None
        # Accepted strided / stride-0 layouts reach numpy as views, never copied.
        args = [arg.view() for arg in call.inputs]
        with np.errstate(all="ignore"):
            result = XP_TABLE[op.op_kind](env, args)
        return store_outputs(call, [result])

    def describe(self) -> str:
        import platform

        import ml_dtypes
        import numpy as np

        return f"numpy {np.__version__} + ml_dtypes {ml_dtypes.__version__} on cpu ({platform.machine()})"

    def fingerprint(self) -> dict[str, str]:
        from backends._fingerprint import numpy_facts

        return numpy_facts()


def backends() -> list[Backend]:
    return [NumpyBackend()]
