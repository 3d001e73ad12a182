"""Long contractions and long scans: the MatMul and CumSum cases that expose a too-narrow
accumulator (the row patterns of ``judge.long_rows``, laid along k or along the scanned axis).

A MatMul gets one or two output rows and columns over a long k: the lhs rows follow a pattern
and the rhs columns hold ones (so the products repeat the pattern exactly), or random values for
the random pattern. A CumSum scans one long axis, last or first, of one or two lanes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from judge.cases import Case
from judge.layouts import build_view, layout_recipe, storage_shape
from judge.long_rows import EQUAL_VALUES, PATTERNS, long_row_case, row_values
from numerics.values import SEED


@st.composite
def _operand(draw, spec, dtype: str, shape: tuple[int, ...], make) -> tuple:
    """(view, logical values, recipe) of one operand whose stored values ``make(count)`` gives."""
    recipe = draw(layout_recipe(shape, spec.layout))
    stored_shape = storage_shape(shape, recipe)
    stored = make(int(np.prod(stored_shape))).reshape(stored_shape)
    view = build_view(stored, shape, recipe, dtype)
    return view, np.array(np.broadcast_to(stored, shape), order="C", copy=True), recipe


def _rows_of(pattern: str, count: int, length: int, dtype: str, rng, value: float) -> np.ndarray:
    """``count`` values: consecutive pattern rows of ``length``, the last one cut short."""
    rows = [row_values(pattern, length, dtype, rng, value) for _ in range(max(1, -(-count // length)))]
    return np.concatenate(rows)[:count]


def _lengths(longest: int) -> tuple[int, ...]:
    return tuple(n for n in (256, 512, 1024, 2048, 4096, 8192, 16384) if n <= longest)


def _draw_row(draw, longest: int) -> tuple[int, str, float, np.random.Generator]:
    """(length, pattern, value, numpy generator): the few draws a long row is built from."""
    length = draw(st.sampled_from(_lengths(longest)))
    pattern = draw(st.sampled_from(PATTERNS))
    value = draw(st.sampled_from(EQUAL_VALUES))
    return length, pattern, value, np.random.default_rng(draw(SEED))


@st.composite
def long_matmul_case(draw, contract, dtypes: tuple[str, ...], longest: int) -> Case:
    k, pattern, value, rng = _draw_row(draw, longest)
    m, n = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    lhs_dtype, rhs_dtype = dtypes[0], dtypes[1]

    def lhs_values(count: int) -> np.ndarray:
        return _rows_of(pattern, count, k, lhs_dtype, rng, value)

    def rhs_values(count: int) -> np.ndarray:  # ones keep the products equal to the lhs pattern
        return row_values("random" if pattern == "random" else "equal", count, rhs_dtype, rng, 1.0)

    a = draw(_operand(contract.inputs[0], lhs_dtype, (m, k), lhs_values))
    b = draw(_operand(contract.inputs[1], rhs_dtype, (k, n), rhs_values))
    params = {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}
    return Case(dtypes[0], (a[0], b[0]), (a[1], b[1]), (a[2], b[2]), params)


@st.composite
def long_scan_case(draw, contract, dtypes: tuple[str, ...], longest: int) -> Case:
    n, pattern, value, rng = _draw_row(draw, longest)
    lanes = draw(st.integers(1, 2))
    first = draw(st.booleans())  # scan the leading axis (lanes inner) or the last one
    shape = (n, lanes) if first else (lanes, n)

    def values(count: int) -> np.ndarray:  # each lane one pattern row
        flat = _rows_of(pattern, count, n, dtypes[0], rng, value)
        return flat.reshape(lanes, n).T.reshape(-1) if first and count == n * lanes else flat

    view, logical, recipe = draw(_operand(contract.inputs[0], dtypes[0], shape, values))
    params = {"outer_count": 1 if first else lanes, "dim_size": n,
              "inner_count": lanes if first else 1, "axis": 0 if first else 1}
    return Case(dtypes[0], (view,), (logical,), (recipe,), params)


def long_case(contract, opdef, dtypes: tuple[str, ...], longest: int):
    """The long case of an accumulating OpKind: a long k, a long scan or a long reduced row."""
    if opdef.family == "matmul":
        return long_matmul_case(contract, dtypes, longest)
    if opdef.family == "scan":
        return long_scan_case(contract, dtypes, longest)
    return long_row_case(contract, opdef, dtypes, longest)
