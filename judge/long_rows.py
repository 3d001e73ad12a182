"""Long rows for accumulating reductions: the inputs that expose a too-narrow accumulator.

A sum that accumulates BF16 or F16 input in its storage format instead of the F32 its contract
names stays within a few ulp on the short rows of ordinary cases. Over a long row it does not:
512 × 1.0 summed in BF16 stalls at 256; one large value followed by many values of half its ulp
never moves; long random rows pile up a rounding error per step. These cases draw a handful of
choices (pattern, length, a numpy seed) and build the row from them, so a 4096-element row costs
Hypothesis a few draws, the ci profile stays derandomised (numpy's PCG64 is the same on every
machine) and a failure shrinks towards the shortest row and the simplest pattern.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from judge.cases import Case
from judge.layouts import build_view, layout_recipe, storage_shape
from numerics.formats import get_format
from numerics.values import SEED

PATTERNS = ("equal", "large_then_small", "random", "cancelling")
# The row ops of the last axis also get rows around a large common offset.
ROW_PATTERNS = (*PATTERNS, "offset")
EQUAL_VALUES = (1.0, 0.5, 3.0, 0.1, 1.0 / 3.0)


def accumulates(opdef) -> bool:
    """Sums, means, sums-to, matrix products, prefix sums and the row ops of the last axis
    (softmax, norms): the results that carry rounding from every step of a fold."""
    return opdef.family in ("reduce", "reduce_to", "matmul", "scan", "norm") and not opdef.exact


def row_values(pattern: str, n: int, dtype: str, rng: np.random.Generator, value: float) -> np.ndarray:
    """``n`` finite values of ``dtype`` following ``pattern`` (exactly representable)."""
    fmt = get_format(dtype)
    if pattern == "equal":  # a narrow accumulator stalls once the sum's ulp exceeds the value
        row = np.full(n, value)
    elif pattern == "large_then_small":  # each small value is half an ulp of the large one
        row = np.full(n, value)
        row[0] = value * 2.0 ** fmt.precision
    elif pattern == "random":  # a rounding error at every step of a narrow accumulator
        row = rng.uniform(-value, 4 * value, n)
    elif pattern == "offset":  # a large common offset, a small spread: E[x²] − E[x]² cancels,
        # and exp(x) overflows unless the row's maximum is subtracted first
        row = 1024 * value + rng.uniform(-value, value, n)
    else:  # pairs that cancel, around a small remainder: Σ|x| large, the sum small
        half = rng.uniform(0.5, 8.0, (n + 1) // 2) * value
        row = np.concatenate([half, -half])[:n]
        row[rng.permutation(n)[:1]] += value / 64
        rng.shuffle(row)
    return row.astype(fmt.numpy_dtype)


@st.composite
def long_row_case(draw, contract, opdef, dtypes: tuple[str, ...], longest: int):
    """A case of one long row (or two, side by side) reduced along it, contiguous or not."""
    lengths = tuple(n for n in (256, 512, 1024, 2048, 4096, 8192, 16384) if n <= longest)
    n = draw(st.sampled_from(lengths))
    pattern = draw(st.sampled_from(ROW_PATTERNS if opdef.family == "norm" else PATTERNS))
    value = draw(st.sampled_from(EQUAL_VALUES))
    rng = np.random.default_rng(draw(SEED))
    rows = draw(st.integers(1, 2))
    shape = (n,) if rows == 1 else (rows, n)
    axis = len(shape) - 1
    if opdef.params == "reduce_to":
        params = {"input_shape": list(shape), "output_shape": [*shape[:-1], 1]}
    elif opdef.family == "norm":  # rows of the last axis: the OpKind's own generator
        from oracles.params import draw_params

        params = draw_params(opdef.params, draw, shape, contract.op_params, nonempty=True)
    else:
        params = {"dims": [axis], "keepdim": False}
    spec, dtype = contract.inputs[0], dtypes[0]
    recipe = draw(layout_recipe(shape, spec.layout))
    stored_shape = storage_shape(shape, recipe)
    count = int(np.prod(stored_shape))
    stored = row_values(pattern, count, dtype, rng, value).reshape(stored_shape)
    view = build_view(stored, shape, recipe, dtype)
    logical = np.array(np.broadcast_to(stored, shape), order="C", copy=True)
    return Case(dtypes[0], (view,), (logical,), (recipe,), params)
