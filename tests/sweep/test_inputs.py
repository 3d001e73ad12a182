"""The sweep input sets: every bit pattern, and the documented pair grid."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from judge.sweep.inputs import all_bits, as_values, grid_pairs, grid_values
from numerics.formats import get_format


@pytest.mark.parametrize("dtype", ["BF16", "F16"])
def test_all_bits_is_every_pattern_once(dtype):
    bits = all_bits(dtype)
    assert bits.size == 65536
    assert np.array_equal(np.unique(bits), bits)


@pytest.mark.parametrize("dtype", ["F32", "F64", "I32"])
def test_other_formats_are_refused_with_a_reason(dtype):
    with pytest.raises((ValueError, KeyError), match="16-bit|F32 sweeps|unknown"):
        all_bits(dtype)


@pytest.mark.parametrize("dtype", ["BF16", "F16"])
def test_grid_holds_every_exponent_and_the_edge_values(dtype):
    fmt = get_format(dtype)
    g = grid_values(dtype)
    assert 1024 <= g.size <= 1024 + 16  # documented: 1,024 spread values plus the edge values
    exponents = {(int(b) >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1) for b in g}
    assert len(exponents) == 1 << fmt.exponent_bits
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten as they widen
        v = as_values(g, dtype).astype(np.float64)
    info = ml_dtypes.finfo(fmt.numpy_dtype)  # numpy >= 2.5 refuses np.finfo(bfloat16)
    finite_max = float(info.max)
    tiny = float(info.smallest_subnormal)
    for x in (0.0, 1.0, 2.0, 0.5, 3.0, finite_max, tiny, np.inf):
        assert x in v and -x in v, x
    assert np.isnan(v).sum() >= 4  # NaNs of both signs, two payloads
    assert np.signbit(v[v == 0]).tolist().count(True) == 1  # -0 present once


def test_grid_pairs_are_every_ordered_pair():
    a, b = grid_pairs("F16", 64)
    g = grid_values("F16", 64)
    assert a.size == b.size == g.size**2
    assert len(set(zip(a.tolist(), b.tolist(), strict=True))) == g.size**2
