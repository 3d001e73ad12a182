"""``cupy-direct``: cupy's F32 ufuncs called directly, for the exhaustive F32 sweeps on a machine
where the ``cupy`` adapter (``backends.cupy_backend``) cannot be loaded.

A plugin, not a built-in: ``judge sweep --plugin backends.cupy_direct --backend cupy-direct``
(scripts/gpu-sweep-f32.sh loads it). It runs the unary kernels the F32 sweep covers, on
contiguous F32 inputs, and nothing else.
"""

from __future__ import annotations

import judge
from judge.api import Backend

# OpKind -> cupy's function of that name (erf is in cupyx.scipy.special)
UFUNCS = {
    "ExpElementwise": "exp", "LogElementwise": "log", "SinElementwise": "sin",
    "CosElementwise": "cos", "TanhElementwise": "tanh", "ErfElementwise": "erf",
    "SqrtElementwise": "sqrt",
}


class DirectCupy(Backend):
    """cupy's natural kernels, called directly."""

    name = "cupy-direct"
    device = "cuda"

    def available(self) -> bool | str:
        try:
            import cupy
        except ImportError as exc:
            return f"cupy is not importable: {exc}"
        return True if cupy.cuda.runtime.getDeviceCount() else "cupy sees no CUDA device"

    def supports(self, contract, dtypes):
        if contract.op_kind not in UFUNCS:
            return f"cupy-direct runs {', '.join(sorted(UFUNCS))} only"
        return True if tuple(dtypes) == ("F32",) else "cupy-direct runs F32 only"

    def describe(self) -> str:
        import cupy

        return f"cupy {cupy.__version__} (direct)"

    def run(self, contract, call):
        import cupy

        name = UFUNCS[contract.op_kind]
        if name == "erf":
            from cupyx.scipy.special import erf as fn
        else:
            fn = getattr(cupy, name)
        return [cupy.asnumpy(fn(cupy.asarray(call.inputs[0].to_array())))]


judge.register_backend(DirectCupy())
