"""Drawing helpers the families share: shapes within a contract's ranks and the budget, operands
that broadcast to a shape, op-param constraints read from a contract, and the long row, reduced
along its last axis, that exposes a narrow accumulator.

Every helper draws with the ``draw`` it is given, in a fixed order, so a family built on them
generates the same cases for the same choices (the ci profile depends on it).
"""

from __future__ import annotations

from hypothesis import strategies as st

from numerics.long_rows import PATTERNS, draw_row, row_values


def rank_bounds(spec, budget) -> tuple[int, int]:
    """The ranks ``spec`` accepts, the unbounded end capped by the budget."""
    lo = spec.rank.lo
    hi = budget.max_rank if spec.rank.hi is None else min(spec.rank.hi, max(budget.max_rank, spec.rank.lo))
    return lo, hi


def draw_rank(draw, lo: int, hi: int, nonempty: bool) -> tuple[int, int]:
    """(rank, the axis left empty or -1), the rank and a one-in-sixteen empty flag drawn as one
    choice. An empty axis is an edge case, not the common case; testing for the top value of
    the flag keeps shrinking away from empty shapes."""
    k = draw(st.integers(0, (hi - lo + 1) * 16 - 1))
    rank, flag = lo + k // 16, k % 16
    if flag != 15 or nonempty or rank == 0:
        return rank, -1
    return rank, draw(st.integers(0, rank - 1))


def draw_shape(draw, rank: int, empty: int, budget) -> tuple[int, ...]:
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


def broadcast_operand(draw, out: tuple[int, ...], spec) -> tuple[int, ...]:
    """An operand shape that broadcasts to ``out`` (numpy rules): fewer leading axes, and axes
    of 1 (a bit each), as one choice that shrinks to ``out`` itself."""
    most = max(0, len(out) - spec.rank.lo)
    drop, ones = divmod(draw(st.integers(0, (most + 1) * (1 << len(out)) - 1)), 1 << len(out))
    shape = list(out[drop:])
    for i, s in enumerate(shape):
        if s != 1 and ones >> i & 1:
            shape[i] = 1
    return tuple(shape)


def free_shapes(draw, contract, opdef, budget, *, primary: int = 0) -> tuple[list[tuple[int, ...]], dict]:
    """``Family.draw_shapes`` for OpKinds whose operands share one free shape: the primary
    operand's rank and shape within the budget, the op params its ``ParamRule`` draws for it,
    and every other operand of that shape, or broadcasting to it where its shape constraint is
    ``broadcast_to``."""
    lo, hi = rank_bounds(contract.inputs[primary], budget)
    rank, empty = draw_rank(draw, lo, hi, opdef.nonempty)
    shape = draw_shape(draw, rank, empty, budget)
    params = opdef.params.draw(draw, shape, contract.op_params, opdef.nonempty) if opdef.params else {}
    shapes = []
    for spec in contract.inputs:
        sc = spec.shape_constraint
        if sc is not None and sc.kind == "broadcast_to":
            shapes.append(broadcast_operand(draw, shape, spec))
        else:
            shapes.append(shape)
    return shapes, params


MAX_GRID = 4096  # elements of a special-value grid case before the hints are left out


def special_value_grid(contract, opdef, dtypes: tuple[str, ...]):
    """``Family.value_grid`` of an elementwise OpKind of two or more operands that takes no op
    params: each operand's special values and the OpKind's hints (``numerics.values.grid_bits``;
    a BOOL operand both ways). A search draws a given pair of special values in a few cases of
    a thousand; the grid judges all of them every time. Beyond ``MAX_GRID`` pairs the hints
    are left out."""
    import math

    import numpy as np

    from numerics.formats import get_format
    from numerics.values import grid_bits

    if opdef.arity < 2 or opdef.params is not None:
        return None

    def values(with_hints: bool):
        sets = []
        for dt in dtypes:
            fmt = get_format(dt)
            bits = grid_bits(dt, tuple(opdef.hints(dt)) if with_hints and fmt.is_float else ())
            if fmt.kind == "bool":
                sets.append(np.array(bits, dtype=bool))
            else:
                sets.append(np.array(bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype))
        return tuple(sets)

    sets = values(True)
    if math.prod(len(v) for v in sets) > MAX_GRID:
        sets = values(False)
    return sets if all(len(v) for v in sets) else None


def fixed_value(fields, name: str) -> float | None:
    """The value a contract's ``== v`` constraint fixes op-param field ``name`` to, or None."""
    f = fields.field(name)
    if f is None or f.constraint is None:
        return None
    for part in (f.constraint, *f.constraint.parts):
        if part.kind == "eq":
            return float(part.value)
    return None


@st.composite
def operand_span(draw, operand, spec, dtype: str, shape: tuple[int, ...], fill):
    """One operand of a long case, drawn by the harness's ``operand`` in a span of its own (so
    Hypothesis can swap one operand's layout for another's)."""
    return operand(draw, spec, dtype, shape, fill)


@st.composite
def long_row_case(draw, contract, dtypes: tuple[str, ...], longest: int, operand, *,
                  patterns: tuple[str, ...] = PATTERNS, params_for=None):
    """``Family.long_case`` of one long row (or two, side by side) reduced along it: the
    operand's values follow one of ``patterns`` (``numerics.long_rows``), its layout is the
    harness's to draw; ``params_for(draw, shape)`` gives the op params of reducing the last axis.
    Returns ([operand], params)."""
    n, pattern, value, rng = draw_row(draw, longest, patterns)
    rows = draw(st.integers(1, 2))
    shape = (n,) if rows == 1 else (rows, n)
    params = params_for(draw, shape)
    dtype = dtypes[0]
    view = operand(draw, contract.inputs[0], dtype, shape,
                   lambda count: row_values(pattern, count, dtype, rng, value))
    return [view], params
