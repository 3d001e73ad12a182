"""Op-param generators, keyed by ``OpDef.params``. Each draws params for given input shapes;
``example_params`` gives one fixed, benign set (for hand-built calls such as adapter smoke tests).

``fields`` is the contract's op params (read through ``fields.field(name)``: the families never
import the harness that parses them). A generator knows the OpKind family's param semantics;
the contract's parsed field constraints
(``== 1.0``, ``>= min``) are honoured on top. Values for float params are drawn exactly
representable in the case's dtype, so "coerced to T" never changes them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from oracles import lastdim

# Small dyadic values: exact in every float format, and they exercise signs, zero and scaling.
_DYADIC = tuple(sorted({k / 4 for k in range(-16, 17)} | {0.125, -0.125, 1024.0, -0.0}))


def _fixed_value(fields, name: str) -> float | None:
    f = fields.field(name)
    if f is None or f.constraint is None:
        return None
    for part in (f.constraint, *f.constraint.parts):
        if part.kind == "eq":
            return float(part.value)
    return None


def _reduce_dims(draw, shape: tuple[int, ...], fields, nonempty: bool) -> dict[str, Any]:
    # One coin per axis: proper subsets (where a wrong axis shows) are the common case, and
    # shrinking leads to no reduced axis. A set of integers would mostly draw the empty set.
    picked = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    return {"dims": [d for d, p in enumerate(picked) if p], "keepdim": False}


def _single_dim(draw, shape, fields, nonempty):
    candidates = [i for i, s in enumerate(shape) if s > 0]
    dim = draw(st.sampled_from(candidates))
    return {"dims": [dim], "keepdim": False}


def _reduce_to(draw, shape, fields, nonempty):
    out = tuple(draw(st.sampled_from((s, 1))) for i, s in enumerate(shape))
    return {"input_shape": list(shape), "output_shape": list(out)}


def _affine(draw, shape, fields, nonempty):
    values = st.sampled_from(_DYADIC)
    mul = _fixed_value(fields, "mul")
    add = _fixed_value(fields, "add")
    return {
        "mul": mul if mul is not None else draw(values),
        "add": add if add is not None else draw(values),
    }


def _signed(v: float) -> tuple[float, float]:
    return v, math.copysign(1.0, v)


def _clamp(draw, shape, fields, nonempty):
    # Zero bounds are drawn often: clamping ±0 against a 0 bound is where signed-zero rules show.
    # hi is never below lo in the order the contracts use for zeros (-0.0 below +0.0).
    lo = draw(st.one_of(st.sampled_from((0.0, -0.0)), st.sampled_from(_DYADIC)))
    zeros = [v for v in (0.0, -0.0) if _signed(v) >= _signed(lo)]
    above = st.sampled_from([v for v in _DYADIC if _signed(v) >= _signed(lo)])
    hi = draw(st.one_of(st.sampled_from(zeros), above) if zeros else above)
    names = ("lo", "hi") if fields.field("lo") is not None else ("min", "max")
    return {names[0]: lo, names[1]: hi}


def _powi(draw, shape, fields, nonempty):
    exp = draw(st.one_of(st.integers(-3, 4), st.integers(-40, 40)))
    return {"exp": exp}


def _none(draw, shape, fields, nonempty):
    return {}


GENERATORS: dict[str, Callable[..., dict[str, Any]]] = {
    "none": _none,
    "reduce_dims": _reduce_dims,
    "single_dim": _single_dim,
    "reduce_to": _reduce_to,
    "reduce_to_backward": _reduce_to,
    "affine": _affine,
    "clamp": _clamp,
    "powi": _powi,
    **lastdim.GENERATORS,
}


def draw_params(key: str, draw, shape: tuple[int, ...], fields, *, nonempty: bool) -> dict[str, Any]:
    """Draw op params with generator ``key`` for a primary input of ``shape``."""
    try:
        gen = GENERATORS[key]
    except KeyError:
        raise KeyError(f"no op-param generator {key!r} (known: {', '.join(GENERATORS)})") from None
    return gen(draw, shape, fields, nonempty)


# One benign param set per generator for an input of ``shape`` (rank >= 1): the last axis reduced,
# a reduce-to keeping the last axis (its backward keeping the first), mid-range scalars.
EXAMPLES: dict[str, Callable[[tuple[int, ...]], dict[str, Any]]] = {
    "none": lambda shape: {},
    "reduce_dims": lambda shape: {"dims": [len(shape) - 1], "keepdim": False},
    "single_dim": lambda shape: {"dims": [len(shape) - 1], "keepdim": False},
    "reduce_to": lambda shape: {"input_shape": list(shape), "output_shape": [1, *shape[1:]]},
    "reduce_to_backward": lambda shape: {"input_shape": list(shape),
                                         "output_shape": [*shape[:-1], 1]},
    "affine": lambda shape: {"mul": 2.0, "add": 0.5},
    "clamp": lambda shape: {"min": -1.0, "max": 2.0},
    "powi": lambda shape: {"exp": 3},
    # CumSum draws its own shapes (oracles.matmul_table); this serves smoke tests.
    "cumsum": lambda shape: {"outer_count": math.prod(shape[:-1]), "dim_size": shape[-1], "inner_count": 1, "axis": len(shape) - 1},
    **lastdim.EXAMPLES,
}


def example_params(key: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """The fixed example params of generator ``key`` for a primary input of ``shape``."""
    try:
        example = EXAMPLES[key]
    except KeyError:
        raise KeyError(f"no op-param generator {key!r} (known: {', '.join(EXAMPLES)})") from None
    return example(shape)
