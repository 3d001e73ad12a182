"""The op params of the reductions: the reduced dims (any subset, or exactly one for an index
reduction) and the reduce-to target shape (each axis kept or collapsed to 1)."""

from __future__ import annotations

from hypothesis import strategies as st

from oracles.opdef import ParamRule


def _draw_dims(draw, shape, fields, nonempty):
    # One coin per axis: proper subsets (where a wrong axis shows) are the common case, and
    # shrinking leads to no reduced axis. A set of integers would mostly draw the empty set.
    picked = draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    return {"dims": [d for d, p in enumerate(picked) if p], "keepdim": False}


def _draw_single_dim(draw, shape, fields, nonempty):
    candidates = [i for i, s in enumerate(shape) if s > 0]
    return {"dims": [draw(st.sampled_from(candidates))], "keepdim": False}


def _last_dim(shape, fields=None):
    return {"dims": [len(shape) - 1], "keepdim": False}


def _draw_target(draw, shape, fields, nonempty):
    out = tuple(draw(st.sampled_from((s, 1))) for i, s in enumerate(shape))
    return {"input_shape": list(shape), "output_shape": list(out)}


def _measure_target(shape, fields):
    """The last axis collapsed: rows folded, as the dims reductions are measured."""
    last = len(shape) - 1
    return {"input_shape": list(shape), "output_shape": [1 if a == last else s for a, s in enumerate(shape)]}


REDUCE_DIMS = ParamRule(_draw_dims, _last_dim, _last_dim)
SINGLE_DIM = ParamRule(_draw_single_dim, _last_dim, _last_dim)
REDUCE_TO = ParamRule(_draw_target, _measure_target,
                      lambda shape: {"input_shape": list(shape), "output_shape": [1, *shape[1:]]})
# A max's backward: the same targets; its example keeps the first axis where the forward's
# collapses it, so the two examples differ.
REDUCE_TO_BACKWARD = ParamRule(_draw_target, _measure_target,
                               lambda shape: {"input_shape": list(shape), "output_shape": [*shape[:-1], 1]})
