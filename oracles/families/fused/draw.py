"""FusedSoftmaxCrossEntropy's cases: logits [n_rows, vocab] with free edge-biased values, targets
drawn within 0..vocab with about one row in four set to ignore_index, ignore_index itself either
torch's default -100 or a valid class (then every row of that class is ignored), and a
reduction; the long cases: a long vocabulary (a row's exponential sum), or many rows (the sum
over rows, and a mean whose denominator counts only the rows not ignored).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import PATTERNS, draw_row, rows_of
from oracles.drawing import operand_span

REDUCTIONS = ("mean", "sum", "none")
DEFAULT_IGNORE = -100  # torch's default ignore_index
LONG_PATTERNS = (*PATTERNS, "offset")
MANY_ROWS = 1024  # the most rows of a long case: the pure oracle evaluates every row  # a large common offset overflows exp without the max shift


@st.composite
def _shapes(draw, budget):
    n_rows = 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, 6))
    vocab = draw(st.integers(1, max(1, min(12, budget.max_elements // max(1, n_rows)))))
    reduction = draw(st.sampled_from(REDUCTIONS))
    ignore = DEFAULT_IGNORE if draw(st.booleans()) else draw(st.integers(0, vocab - 1))
    params = {"n_rows": n_rows, "vocab": vocab, "reduction": reduction, "ignore_index": ignore}
    return [(n_rows, vocab), (n_rows,)], params


def draw_shapes(draw, contract, opdef, budget):
    return draw(_shapes(budget))


def _targets(count: int, vocab: int, ignore: int):
    """``count`` targets: a class, or ignore_index about one time in four (choice 0)."""
    pick = st.integers(0, 3).flatmap(lambda k: st.just(ignore) if k == 0 else st.integers(0, vocab - 1))
    return st.lists(pick, min_size=count, max_size=count).map(lambda ts: np.array(ts, dtype=np.int64))


def draw_input(opdef, i, dtype, shapes, params):
    """The targets; logits are free."""
    if i != 1:
        return None
    return _targets(shapes[1][0], int(params["vocab"]), int(params["ignore_index"]))


@st.composite
def _long_cross_entropy(draw, contract, dtypes, longest, operand):
    """A long vocabulary over one or two rows, or many short rows with some ignored."""
    wide = draw(st.booleans())
    length, pattern, value, rng = draw_row(draw, longest if wide else min(longest, MANY_ROWS),
                                           LONG_PATTERNS)
    if wide:
        n_rows, vocab = draw(st.integers(1, 2)), length
    else:
        n_rows, vocab = length, draw(st.integers(2, 4))
    reduction = draw(st.sampled_from(REDUCTIONS))
    ignore = DEFAULT_IGNORE
    targets = rng.integers(0, vocab, n_rows)
    targets[rng.random(n_rows) < 0.25] = ignore
    params = {"n_rows": n_rows, "vocab": vocab, "reduction": reduction, "ignore_index": ignore}

    def logits(count: int) -> np.ndarray:  # a long row, or one pattern across the many rows
        return rows_of(pattern, count, vocab if wide else count, dtypes[0], rng, value)

    def fixed(count: int) -> np.ndarray:
        return np.resize(targets, count).astype(np.int64)

    a = draw(operand_span(operand, contract.inputs[0], dtypes[0], (n_rows, vocab), logits))
    t = draw(operand_span(operand, contract.inputs[1], dtypes[1], (n_rows,), fixed))
    return [a, t], params


def long_case(contract, opdef, dtypes, longest, operand):
    return _long_cross_entropy(contract, dtypes, longest, operand)
