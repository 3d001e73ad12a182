"""Long rows of values that expose a too-narrow accumulator.

A sum that accumulates BF16 or F16 input in its storage format instead of the F32 its contract
names stays within a few ulp on the short rows of ordinary cases. Over a long row it does not:
512 × 1.0 summed in BF16 stalls at 256; one large value followed by many values of half its ulp
never moves; long random rows pile up a rounding error per step. A long case draws a handful of
choices (pattern, length, a value, a numpy seed) and builds its rows from them, so a 4096-element
row costs Hypothesis a few draws, the ci profile stays derandomised (numpy's PCG64 is the same on
every machine) and a failure shrinks towards the shortest row and the simplest pattern. The
families that accumulate lay these rows along what they fold (``Family.long_case``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.formats import get_format
from numerics.rounding import int_range
from numerics.values import SEED, reserved_bits

PATTERNS = ("equal", "large_then_small", "random", "cancelling", "halves")
EQUAL_VALUES = (1.0, 0.5, 3.0, 0.1, 1.0 / 3.0)
LENGTHS = (256, 512, 1024, 2048, 4096, 8192, 16384)


def lengths(longest: int) -> tuple[int, ...]:
    """The row lengths a long case picks from, up to ``longest``."""
    return tuple(n for n in LENGTHS if n <= longest)


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
    else:  # pairs that cancel, around a small remainder: Σ|x| large, the sum small; shuffled,
        # or in two halves ("halves": every prefix and every slice of the first half sums large,
        # where a narrow prefix sum or a split-K's narrow partial sums lose what the total keeps)
        half = rng.uniform(0.5, 8.0, (n + 1) // 2) * value
        # the negations in another order: slices of the two halves must not mirror each other
        row = np.concatenate([half, -rng.permutation(half)])[:n]
        row[rng.permutation(n)[:1]] += value / 64
        if pattern == "cancelling":
            rng.shuffle(row)
    return row.astype(fmt.numpy_dtype)


def rows_of(pattern: str, count: int, length: int, dtype: str, rng, value: float) -> np.ndarray:
    """``count`` values: consecutive pattern rows of ``length``, the last one cut short."""
    rows = [row_values(pattern, length, dtype, rng, value) for _ in range(max(1, -(-count // length)))]
    return np.concatenate(rows)[:count]


def draw_row(draw, longest: int, patterns: tuple[str, ...] = PATTERNS
             ) -> tuple[int, str, float, np.random.Generator]:
    """(length, pattern, value, numpy generator): the few draws a long row is built from."""
    length = draw(st.sampled_from(lengths(longest)))
    pattern = draw(st.sampled_from(patterns))
    value = draw(st.sampled_from(EQUAL_VALUES))
    return length, pattern, value, np.random.default_rng(draw(SEED))


# Integer long rows: extremes (every product near the largest, the sum far past the output's
# range, where an I8 or I16 accumulator wraps), random values over the whole range, and pairs
# that cancel (partial sums far out, the total small: a saturating accumulator clamps them).
INT_PATTERNS = ("extremes", "random", "cancelling")


def int_row(pattern: str, count: int, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """``count`` values of integer format ``dtype`` following ``pattern``, none of them the
    format's reserved poison (moved one up)."""
    fmt = get_format(dtype)
    lo, hi = int_range(dtype)
    if pattern == "extremes":
        row = rng.choice(np.array([lo, lo + 1, hi - 1, hi]), count)
    elif pattern == "random":
        row = rng.integers(lo, hi, count, endpoint=True)
    else:
        top = min(hi, -lo) if lo < 0 else hi
        half = rng.integers(top // 2, top, (count + 1) // 2, endpoint=True)
        sign = -1 if lo < 0 else 0  # unsigned: pairs of a value and zero
        row = rng.permutation(np.concatenate([half, sign * half])[:count])
    row = row.astype(fmt.numpy_dtype)
    poison = np.array(reserved_bits(dtype), dtype=fmt.bits_dtype).view(row.dtype)
    row[np.isin(row, poison)] += 1
    return row


def draw_int_row(draw, longest: int) -> tuple[int, str, np.random.Generator]:
    """(length, pattern, numpy generator) of an integer long row no longer than ``longest``."""
    length = draw(st.sampled_from(lengths(longest) or (longest,)))
    pattern = draw(st.sampled_from(INT_PATTERNS))
    return length, pattern, np.random.default_rng(draw(SEED))
