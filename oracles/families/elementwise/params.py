"""The op params of the elementwise OpKinds that take them: Affine's mul and add, a clamp's two
bounds, PowI's integer exponent.

Values for float params are drawn exactly representable in every format, so "coerced to T"
never changes them; a contract's ``== v`` constraint on a field fixes it.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from numerics.values import int_param
from oracles.drawing import fixed_value
from oracles.opdef import ParamRule

# Small dyadic values: exact in every float format, and they exercise signs, zero and scaling.
_DYADIC = tuple(sorted({k / 4 for k in range(-16, 17)} | {0.125, -0.125, 1024.0, -0.0}))


def _draw_affine(draw, shape, fields, nonempty):
    values = st.sampled_from(_DYADIC)
    mul = fixed_value(fields, "mul")
    add = fixed_value(fields, "add")
    return {
        "mul": mul if mul is not None else draw(values),
        "add": add if add is not None else draw(values),
    }


def _measure_affine(shape, fields):
    mul, add = fixed_value(fields, "mul"), fixed_value(fields, "add")
    return {"mul": 2.0 if mul is None else mul, "add": 0.5 if add is None else add}


def _signed(v: float) -> tuple[float, float]:
    return v, math.copysign(1.0, v)


def _bound_names(fields) -> tuple[str, str]:
    return ("lo", "hi") if fields.field("lo") is not None else ("min", "max")


def _draw_clamp(draw, shape, fields, nonempty):
    # Zero bounds are drawn often: clamping ±0 against a 0 bound is where signed-zero rules show.
    # hi is never below lo in the order the contracts use for zeros (-0.0 below +0.0).
    lo = draw(st.one_of(st.sampled_from((0.0, -0.0)), st.sampled_from(_DYADIC)))
    zeros = [v for v in (0.0, -0.0) if _signed(v) >= _signed(lo)]
    above = st.sampled_from([v for v in _DYADIC if _signed(v) >= _signed(lo)])
    hi = draw(st.one_of(st.sampled_from(zeros), above) if zeros else above)
    names = _bound_names(fields)
    return {names[0]: lo, names[1]: hi}


def _measure_clamp(shape, fields):
    names = _bound_names(fields)  # inside the measured values' [0.5, 1.5): both branches run
    return {names[0]: 0.75, names[1]: 1.25}


def _draw_powi(draw, shape, fields, nonempty):
    found = fields.field("exp") if fields is not None else None
    usual = st.one_of(st.integers(-3, 4), st.integers(-40, 40))
    return {"exp": draw(int_param(found.kind if found is not None else "i32", usual))}


AFFINE = ParamRule(_draw_affine, _measure_affine, lambda shape: {"mul": 2.0, "add": 0.5})
CLAMP = ParamRule(_draw_clamp, _measure_clamp, lambda shape: {"min": -1.0, "max": 2.0})
POWI = ParamRule(_draw_powi, lambda shape, fields: {"exp": 3}, lambda shape: {"exp": 3})
