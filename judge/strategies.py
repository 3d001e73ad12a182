"""Hypothesis strategies derived from a contract's accept clause (SPEC §1, §4).

From one contract and one dtype of its fan: input dtypes, a rank within each operand's range,
shapes meeting the shape constraints (``same_as``, ``broadcast_to``, reduce dims), op params
meeting their constraints, a memory layout per operand (contiguous or awkward; rejected layouts
are generated too and left to the executor to materialise) and values biased to edge cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from judge.cases import Case
from judge.contracts.model import Contract, InputSpec
from judge.layouts import build_view, draw_layout, storage_shape
from numerics.formats import get_format
from numerics.values import POISON_BITS, SEED, draw_values, raw_words

_BROADCASTING_FAMILIES = {"binary", "compare", "where"}
_ECHOES = st.sampled_from(("none", "same", "negated", "both"))


@dataclass(frozen=True)
class Budget:
    """Size limits of generated cases (the pure oracle's cost grows with elements).

    ``long_row``: the longest row an accumulating reduction (sum, mean, sum-to) is also given,
    in about one case in four: an accumulator too narrow for its contract only shows over long
    rows (``long_rows``).
    """

    max_rank: int = 4
    max_side: int = 5
    max_elements: int = 48
    long_row: int = 4096


def input_dtypes(contract: Contract, dtype: str) -> tuple[str, ...]:
    """Each operand's dtype for the item of ``dtype``: the fan dtype where it is listed."""
    return tuple(dtype if dtype in spec.dtypes else spec.dtypes[0] for spec in contract.inputs)


def _rank_bounds(spec: InputSpec, budget: Budget) -> tuple[int, int]:
    lo = spec.rank.lo
    hi = budget.max_rank if spec.rank.hi is None else min(spec.rank.hi, max(budget.max_rank, spec.rank.lo))
    return lo, hi


def _shape(draw, rank: int, empty: int, budget: Budget) -> tuple[int, ...]:
    """``rank`` sides within the budget; axis ``empty`` (if any) is 0."""
    dims = []
    used = 1
    for axis in range(rank):
        room = max(1, budget.max_elements // max(used, 1))
        hi = max(1, min(budget.max_side, room))
        side = 0 if axis == empty else draw(st.integers(1, hi))
        dims.append(side)
        used *= max(side, 1)
    return tuple(dims)


def _rank(draw, lo: int, hi: int, nonempty: bool) -> tuple[int, int]:
    """(rank, the axis left empty or -1), the rank and a one-in-sixteen empty flag drawn as one
    choice. An empty axis is an edge case, not the common case; testing for the top value of
    the flag keeps shrinking away from empty shapes."""
    k = draw(st.integers(0, (hi - lo + 1) * 16 - 1))
    rank, flag = lo + k // 16, k % 16
    if flag != 15 or nonempty or rank == 0:
        return rank, -1
    return rank, draw(st.integers(0, rank - 1))


def _broadcast_operand(draw, out: tuple[int, ...], spec: InputSpec) -> tuple[int, ...]:
    """An operand shape that broadcasts to ``out`` (numpy rules): fewer leading axes, and axes
    of 1 (a bit each), as one choice that shrinks to ``out`` itself."""
    most = max(0, len(out) - spec.rank.lo)
    drop, ones = divmod(draw(st.integers(0, (most + 1) * (1 << len(out)) - 1)), 1 << len(out))
    shape = list(out[drop:])
    for i, s in enumerate(shape):
        if s != 1 and ones >> i & 1:
            shape[i] = 1
    return tuple(shape)


def shapes_and_params(draw, contract: Contract, opdef, budget: Budget) -> tuple[list[tuple[int, ...]], dict]:
    """Each operand's shape and the op params, drawn with ``draw``."""
    from oracles.params import draw_params

    if opdef.draw_shapes is not None:  # the OpKind ties its operands' shapes together itself
        shapes, params = draw(opdef.draw_shapes(contract, budget))
        return [tuple(s) for s in shapes], params
    family = opdef.family
    nonempty = opdef.nonempty
    primary = contract.inputs[0] if family != "where" else contract.inputs[1]
    lo, hi = _rank_bounds(primary, budget)
    if opdef.params == "single_dim":  # a dim in 0..rank needs rank >= 1
        lo, hi = max(lo, 1), max(hi, 1)
    rank, empty = _rank(draw, lo, hi, nonempty)
    shape = _shape(draw, rank, empty, budget)
    params = draw_params(opdef.params, draw, shape, contract.op_params, nonempty=nonempty)
    shapes: list[tuple[int, ...]] = []
    for spec in contract.inputs:
        sc = spec.shape_constraint
        if family == "reduce_to_backward" and spec is not contract.inputs[0]:
            shapes.append(tuple(params["output_shape"]))
        elif family in _BROADCASTING_FAMILIES and sc is not None and sc.kind == "broadcast_to":
            shapes.append(_broadcast_operand(draw, shape, spec))
        else:
            shapes.append(shape)
    return shapes, params


def _echo(draw, stored: np.ndarray, partner: np.ndarray, dtype: str) -> np.ndarray:
    """Some elements of a later operand repeat an earlier operand's value at the same position,
    as is or with the sign flipped: the equal pairs, x - x, x / x, ±0 pairs and ties that
    max, min, comparisons, division and remainder rules are about. Shrinks to no echo."""
    fmt = get_format(dtype)
    how = draw(_ECHOES)
    if how == "none" or stored.size == 0 or fmt.kind == "bool":
        return stored
    n = stored.size
    quarters = draw(st.integers(1, 4))  # the share of elements echoed
    r = raw_words(draw(SEED), 2 * n)
    picked = r[:n] % np.uint64(4) < np.uint64(quarters)
    out = stored.reshape(-1).view(fmt.bits_dtype).copy()
    src = partner.reshape(-1).view(fmt.bits_dtype)
    flip = np.zeros(out.shape, dtype=bool)
    if fmt.is_float and how != "same":
        flip = np.ones(out.shape, dtype=bool) if how == "negated" else (r[n:] & np.uint64(1)).astype(bool)
    sign = fmt.bits_dtype.type((1 << (fmt.bits - 1)) if fmt.is_float else 0)
    echoed = np.where(flip, src ^ sign, src)
    poisoned = echoed == POISON_BITS[dtype]  # a flipped NaN must not look like an unwritten output
    echoed[poisoned] = src[poisoned]
    out[picked] = echoed[picked]
    return out.view(stored.dtype).reshape(stored.shape)


@st.composite
def case_strategy(draw, contract: Contract, dtype: str, budget: Budget = Budget()) -> Case:
    """One generated case for ``contract`` at fan dtype ``dtype``."""
    import oracles
    from judge.long_products import long_case
    from judge.long_rows import accumulates

    opdef = oracles.get(contract.op_kind)
    dtypes = input_dtypes(contract, dtype)
    # The top value leads to long rows, so shrinking leads away from them.
    if accumulates(opdef) and budget.long_row and draw(st.integers(0, 3)) == 3:
        return draw(long_case(contract, opdef, dtypes, budget.long_row))
    shapes, params = shapes_and_params(draw, contract, opdef, budget)
    hints = tuple(opdef.hints(dtype))
    inputs, values, recipes, drawn = [], [], [], []
    for i, (shape, dt, spec) in enumerate(zip(shapes, dtypes, contract.inputs, strict=True)):
        recipe = draw_layout(draw, shape, spec.layout)
        fixed = opdef.draw_input(i, dt, shapes, params) if opdef.draw_input else None
        if fixed is not None:  # indices, masks: the OpKind draws the values (a stride-0 axis
            # repeats the first slice along it, which stays within what the OpKind allows)
            full = np.asarray(draw(fixed))
            stored = full[tuple(slice(0, n) for n in storage_shape(shape, recipe))]
        else:
            stored = draw_values(draw, dt, storage_shape(shape, recipe), hints)
        partner = next((a for a, d in drawn if d == dt and a.shape == stored.shape), None)
        if partner is not None and fixed is None:
            stored = _echo(draw, stored, partner, dt)
        drawn.append((stored, dt))
        inputs.append(build_view(stored, shape, recipe, dt))
        values.append(np.array(np.broadcast_to(stored, shape), order="C", copy=True))
        recipes.append(recipe)
    return Case(dtype, tuple(inputs), tuple(values), tuple(recipes), params)
