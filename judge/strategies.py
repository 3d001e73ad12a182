"""Hypothesis strategies derived from a contract's accept clause (SPEC §1, §4).

From one contract and one dtype of its fan: input dtypes, a rank within each operand's range,
shapes meeting the shape constraints (``same_as``, ``broadcast_to``, reduce dims), op params
meeting their constraints, a memory layout per operand (contiguous or awkward; rejected layouts
are generated too and left to the executor to materialise) and values biased to edge cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from judge.api import TensorArg
from judge.contracts.model import Contract, InputSpec
from judge.layouts import CONTIGUOUS, LayoutRecipe, build_view, storage_shape
from judge.values import value_array

# Families whose result is undefined on an empty reduction (no identity element).
_NONEMPTY_FAMILIES = {"argreduce", "reduce_to_backward"}
_NONEMPTY_OPS = {"MaxReduce", "MinReduce", "MeanReduce", "ReduceMaxTo"}
_BROADCASTING_FAMILIES = {"binary", "compare", "where"}


@dataclass(frozen=True)
class Budget:
    """Size limits of generated cases (the pure oracle's cost grows with elements)."""

    max_rank: int = 4
    max_side: int = 5
    max_elements: int = 48


@dataclass(frozen=True)
class Case:
    dtype: str  # the item's dtype
    inputs: tuple[TensorArg, ...]  # as generated: possibly awkward views
    values: tuple[np.ndarray, ...]  # each input's logical values, contiguous
    recipes: tuple[LayoutRecipe, ...]
    params: dict[str, Any] = field(default_factory=dict)

    def describe(self, names: tuple[str, ...]) -> str:
        lines = []
        for name, t, r in zip(names, self.inputs, self.recipes, strict=True):
            lines.append(
                f"  {name}: {t.dtype} shape={list(t.shape)} strides={list(t.strides)} "
                f"offset={t.offset} ({r.describe()})"
            )
        if self.params:
            lines.append(f"  params: {self.params}")
        return "\n".join(lines)


def input_dtypes(contract: Contract, dtype: str) -> tuple[str, ...]:
    """Each operand's dtype for the item of ``dtype``: the fan dtype where it is listed."""
    return tuple(dtype if dtype in spec.dtypes else spec.dtypes[0] for spec in contract.inputs)


def _rank_bounds(spec: InputSpec, budget: Budget) -> tuple[int, int]:
    lo = spec.rank.lo
    hi = budget.max_rank if spec.rank.hi is None else min(spec.rank.hi, max(budget.max_rank, spec.rank.lo))
    return lo, hi


@st.composite
def _shape(draw, rank: int, budget: Budget, nonempty: bool) -> tuple[int, ...]:
    dims = []
    used = 1
    for _ in range(rank):
        room = max(1, budget.max_elements // max(used, 1))
        hi = max(1, min(budget.max_side, room))
        # Empty axes are an edge case, not the common case: about one draw in sixteen where
        # allowed. Testing for the top value keeps shrinking away from empty shapes.
        empty = not nonempty and draw(st.integers(0, 15)) == 15
        side = 0 if empty else draw(st.integers(1, hi))
        dims.append(side)
        used *= max(side, 1)
    return tuple(dims)


@st.composite
def _broadcast_operand(draw, out: tuple[int, ...], spec: InputSpec) -> tuple[int, ...]:
    """An operand shape that broadcasts to ``out`` (numpy rules): axes of 1, fewer leading axes."""
    lo = spec.rank.lo
    drop = draw(st.integers(0, max(0, len(out) - lo)))
    shape = list(out[drop:])
    for i, s in enumerate(shape):
        if s != 1 and draw(st.booleans()):
            shape[i] = 1
    return tuple(shape)


def _nonempty(contract: Contract, family: str) -> bool:
    return family in _NONEMPTY_FAMILIES or contract.op_kind in _NONEMPTY_OPS


@st.composite
def shapes_and_params(draw, contract: Contract, opdef, budget: Budget) -> tuple[list[tuple[int, ...]], dict]:
    from oracles.params import draw_params

    family = opdef.family
    nonempty = _nonempty(contract, family)
    primary = contract.inputs[0] if family != "where" else contract.inputs[1]
    lo, hi = _rank_bounds(primary, budget)
    if opdef.params == "single_dim":  # a dim in 0..rank needs rank >= 1
        lo, hi = max(lo, 1), max(hi, 1)
    rank = draw(st.integers(lo, hi))
    shape = draw(_shape(rank, budget, nonempty))
    params = draw_params(opdef.params, draw, shape, contract.op_params, nonempty=nonempty)
    shapes: list[tuple[int, ...]] = []
    for spec in contract.inputs:
        sc = spec.shape_constraint
        if family == "reduce_to_backward" and spec is not contract.inputs[0]:
            shapes.append(tuple(params["output_shape"]))
        elif family in _BROADCASTING_FAMILIES and sc is not None and sc.kind == "broadcast_to":
            shapes.append(draw(_broadcast_operand(shape, spec)))
        else:
            shapes.append(shape)
    return shapes, params


@st.composite
def layout_recipe(draw, shape: tuple[int, ...]) -> LayoutRecipe:
    """Contiguous about a third of the time (and where shrinking leads); otherwise a mix of
    awkward features, accepted by the contract or not."""
    rank = len(shape)
    if rank == 0 or 0 in shape or draw(st.integers(0, 2)) == 0:
        return CONTIGUOUS
    perm = tuple(draw(st.permutations(range(rank))))
    steps = tuple(draw(st.sampled_from((1, 1, 2))) for _ in range(rank))
    wide = [a for a, s in enumerate(shape) if s > 1]
    broadcast = frozenset(a for a in wide if draw(st.integers(0, 3)) == 0)
    offset = draw(st.sampled_from((0, 0, 1, 3)))
    reverse = frozenset(a for a in wide if a not in broadcast and draw(st.integers(0, 3)) == 0)
    return LayoutRecipe(perm=perm, steps=steps, broadcast=broadcast, offset=offset, reverse=reverse)


@st.composite
def case_strategy(draw, contract: Contract, dtype: str, budget: Budget = Budget()) -> Case:
    """One generated case for ``contract`` at fan dtype ``dtype``."""
    import oracles

    opdef = oracles.get(contract.op_kind)
    dtypes = input_dtypes(contract, dtype)
    shapes, params = draw(shapes_and_params(contract, opdef, budget))
    hints = tuple(opdef.hints(dtype))
    inputs, values, recipes = [], [], []
    for shape, dt in zip(shapes, dtypes, strict=True):
        recipe = draw(layout_recipe(shape))
        stored = draw(value_array(dt, storage_shape(shape, recipe), hints))
        inputs.append(build_view(stored, shape, recipe, dt))
        values.append(np.array(np.broadcast_to(stored, shape), order="C", copy=True))
        recipes.append(recipe)
    return Case(dtype, tuple(inputs), tuple(values), tuple(recipes), params)
