"""The reductions family: SumReduce, MeanReduce, MaxReduce, MinReduce (over any subset of
axes), ReduceSumTo, ReduceMaxTo (to a target shape), ReduceMaxToBackward, and the index
reductions ArgMaxDim, ArgMinDim (over one axis, U32 out).

A case draws one free shape and the reduced axes or target shape for it
(``oracles.families.reductions.params``); a backward's upstream gradient takes the reduced shape.
Sums, means and sums-to also get a long row in one case of four, where an accumulator narrower
than the contract's shows. A NaN input reaches the outputs its slice folds into, and an index
reduction that returns another index of an equal value broke the tie rule.
"""

from __future__ import annotations

import numpy as np

from oracles.drawing import draw_rank, draw_shape, long_row_case, rank_bounds
from oracles.families.reductions.params import (
    REDUCE_DIMS,
    REDUCE_TO,
    REDUCE_TO_BACKWARD,
    SINGLE_DIM,
)
from oracles.families.reductions.table import rows
from oracles.family import BatchRows, Family, measured_shape, same_params

INDEX_REDUCTIONS = frozenset({"ArgMaxDim", "ArgMinDim"})


def _other_shapes(opdef, shape, params, count: int) -> list[tuple[int, ...]]:
    """Every operand's shape: the input's, and a backward's upstream in the reduced shape."""
    rest = tuple(params["output_shape"]) if opdef.params is REDUCE_TO_BACKWARD else shape
    return [shape] + [rest] * (count - 1)


def draw_shapes(draw, contract, opdef, budget):
    lo, hi = rank_bounds(contract.inputs[0], budget)
    if opdef.params is SINGLE_DIM:  # a dim in 0..rank needs rank >= 1
        lo, hi = max(lo, 1), max(hi, 1)
    rank, empty = draw_rank(draw, lo, hi, opdef.nonempty)
    shape = draw_shape(draw, rank, empty, budget)
    params = opdef.params.draw(draw, shape, contract.op_params, opdef.nonempty)
    return _other_shapes(opdef, shape, params, len(contract.inputs)), params


def _last_axis(draw, shape):
    return {"dims": [len(shape) - 1], "keepdim": False}


def _last_axis_to(draw, shape):
    return {"input_shape": list(shape), "output_shape": [*shape[:-1], 1]}


def long_case(contract, opdef, dtypes, longest, operand):
    """Sums, means and sums-to: a long row reduced along its last axis."""
    if opdef.exact or opdef.params not in (REDUCE_DIMS, REDUCE_TO):
        return None
    params_for = _last_axis_to if opdef.params is REDUCE_TO else _last_axis
    return long_row_case(contract, dtypes, longest, operand, params_for=params_for)


def reach(opdef, flagged, params, out_shape) -> np.ndarray:
    """The outputs a flagged input element is folded into (a backward's: its whole slice, and
    the positions its upstream element is shared out to)."""
    m = flagged[0]
    if opdef.params in (REDUCE_DIMS, SINGLE_DIM):
        dims = tuple(params.get("dims", ()))
        r = np.any(m, axis=dims, keepdims=bool(params.get("keepdim", False))) if dims else m
        return np.broadcast_to(r, out_shape)
    target = tuple(params["output_shape"])
    axes = tuple(a for a, (i, o) in enumerate(zip(m.shape, target, strict=True)) if o == 1 and i != 1)
    r = np.any(m, axis=axes, keepdims=True) if axes else m
    if opdef.params is REDUCE_TO_BACKWARD:
        r = np.broadcast_to(r, m.shape) | np.broadcast_to(flagged[1].reshape(target), m.shape)
    return np.broadcast_to(r, out_shape)


def explain_mismatch(opdef, values, params, shape, i, observed, expected):
    """An index reduction's wrong index: a tie failure where it points at an equal value, a NaN
    failure where a NaN decided it."""
    if opdef.op_kind not in INDEX_REDUCTIONS:
        return None
    dim = params["dims"][0]
    x = values[0]
    idx = list(np.unravel_index(i, shape)) if shape else []
    got, want = int(observed.reshape(-1)[i]), int(expected.reshape(-1)[i])
    if 0 <= got < x.shape[dim]:
        a = x[tuple(idx[:dim] + [got] + idx[dim:])]
        b = x[tuple(idx[:dim] + [want] + idx[dim:])]
        if a != a or b != b:  # what broke is which NaN (or number) the NaN rule picks
            return "nan", ""
        if a == b:
            return "ties", "equal values: the tie rule picks the first index"
    return "exact", "exact by definition (bit-for-bit)"


def size_plan(contract, opdef, n):
    """Rows of ``REDUCED_AXIS`` elements, the last axis folded."""
    shape = measured_shape(contract, n, rows=True)
    params = opdef.params.measure(shape, contract.op_params)
    return _other_shapes(opdef, shape, params, len(contract.inputs)), params


def example_params(opdef, shape):
    return opdef.params.example(shape)


def batch_rows(contract, opdef, shapes, params):
    """The first axis a reduction keeps while it folds another: each of its slices is a row."""
    shape = shapes[0]
    if opdef.params in (REDUCE_DIMS, SINGLE_DIM):
        dims = set(params.get("dims", ()))
        kept = [a for a in range(len(shape)) if a not in dims]
        if not dims or not kept:
            return None
        a = kept[0]
        out = a if params.get("keepdim") else a - sum(d < a for d in dims)
        return BatchRows((a,), (out,), same_params(params))
    target = tuple(params["output_shape"])
    if all(t == s for t, s in zip(target, shape, strict=True)):
        return None  # nothing folded
    kept = sorted((a for a, (t, s) in enumerate(zip(target, shape, strict=True)) if t == s),
                  key=lambda a: shape[a] <= 1)
    if not kept:
        return None
    a = kept[0]

    def resized(count: int) -> dict:
        grown = dict(params)
        for key in ("input_shape", "output_shape"):
            grown[key] = [count if i == a else v for i, v in enumerate(params[key])]
        return grown

    return BatchRows((a,) * len(shapes), (a,), resized)


FAMILY = Family(
    name="reductions",
    rows=rows,
    draw_shapes=draw_shapes,
    long_case=long_case,
    reach=reach,
    explain_mismatch=explain_mismatch,
    size_plan=size_plan,
    example_params=example_params,
    batch_rows=batch_rows,
)
