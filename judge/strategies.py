"""Hypothesis strategies derived from a contract's accept clause (SPEC §1, §4).

From one contract and one dtype of its fan: input dtypes; the operands' shapes and op params,
drawn by the OpKind's family (``oracles.family.Family.draw_shapes``) within the contract's ranks
and constraints; a memory layout per operand (contiguous or awkward; rejected layouts are
generated too and left to the executor to materialise); and values biased to edge cases, where
the family does not constrain them. In its share of cases a family's long case replaces all that
(``Family.long_case``): long rows that expose a too-narrow accumulator.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from judge.cases import Case
from judge.contracts.model import Contract, InputSpec
from judge.layouts import build_view, draw_layout, layout_recipe, storage_shape
from numerics.formats import get_format
from numerics.values import POISON_BITS, SEED, draw_values, raw_words
from oracles.family import Budget

_ECHOES = st.sampled_from(("none", "same", "negated", "both"))
DEFAULT_BUDGET = Budget()


def input_dtypes(contract: Contract, dtype: str) -> tuple[str, ...]:
    """Each operand's dtype for the item of ``dtype``: the fan dtype where it is listed."""
    return tuple(dtype if dtype in spec.dtypes else spec.dtypes[0] for spec in contract.inputs)


def build_operand(draw, spec: InputSpec, dtype: str, shape: tuple[int, ...], fill):
    """One operand of a family's long case (``Family.long_case``): a layout drawn within what
    ``spec`` accepts, its storage filled by ``fill(count)``; (view, logical values, recipe)."""
    recipe = draw(layout_recipe(shape, spec.layout))
    stored_shape = storage_shape(shape, recipe)
    stored = fill(int(np.prod(stored_shape))).reshape(stored_shape)
    view = build_view(stored, shape, recipe, dtype)
    return view, np.array(np.broadcast_to(stored, shape), order="C", copy=True), recipe


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


def search_parts(contract: Contract, examples: int, budget: Budget = DEFAULT_BUDGET) -> list[tuple[bool | None, int]]:
    """How a search of ``examples`` cases splits: [(long, cases)] for ``case_strategy``. Where
    the family has long cases they get their share (one in ``long_share``) in a search of their
    own, so that targeting the short cases' worst error cannot crowd them out, nor targeting
    one long case's error collapse them onto one pattern (long cases are never targeted)."""
    import oracles

    family, opdef = oracles.family_of(contract.op_kind), oracles.get(contract.op_kind)
    dtypes = input_dtypes(contract, contract.dtype_fan[0])
    long_case = family.long_case(contract, opdef, dtypes, budget.long_row, build_operand) if budget.long_row else None
    if long_case is None:
        return [(None, examples)]
    long = max(1, examples // family.long_share)
    return [(False, max(1, examples - long)), (True, long)]


@st.composite
def case_strategy(draw, contract: Contract, dtype: str, budget: Budget = DEFAULT_BUDGET,
                  long: bool | None = None) -> Case:
    """One generated case for ``contract`` at fan dtype ``dtype``: its family draws the shapes,
    the op params, the values it constrains and its long cases; layouts and free values are
    drawn here. ``long``: True, only the family's long cases; False, never; None, one case in
    the family's ``long_share``."""
    import oracles

    opdef = oracles.get(contract.op_kind)
    family = oracles.family_of(contract.op_kind)
    dtypes = input_dtypes(contract, dtype)
    strategy = (family.long_case(contract, opdef, dtypes, budget.long_row, build_operand)
                if budget.long_row and long is not False else None)
    # The top value leads to the long case, so shrinking leads away from it.
    if strategy is not None and (long or draw(st.integers(0, family.long_share - 1)) == family.long_share - 1):
        operands, params = draw(strategy)
        views, values, recipes = (tuple(part) for part in zip(*operands, strict=True))
        return Case(dtypes[0], views, values, recipes, params, long=True)
    shapes, params = family.draw_shapes(draw, contract, opdef, budget)
    shapes = [tuple(s) for s in shapes]
    hints = tuple(opdef.hints(dtype))
    inputs, values, recipes, drawn = [], [], [], []
    for i, (shape, dt, spec) in enumerate(zip(shapes, dtypes, contract.inputs, strict=True)):
        recipe = draw_layout(draw, shape, spec.layout)
        fixed = family.draw_input(opdef, i, dt, shapes, params)
        if fixed is not None:  # indices, masks: the family draws the values (a stride-0 axis
            # repeats the first slice along it, which stays within what the family allows)
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
