"""Exhaustive casts from the 8- and 16-bit formats: every item casting from one also judges every
value of its source format (the cast family's ``value_grid``), so a cast wrong on one single
source value is caught at every seed; wider sources get ties of the target drawn on purpose."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from judge.drivers.grid import grid_case
from judge.profiles import get_profile
from judge.runner import Item, run_item


def test_every_value_of_a_16_bit_source_is_cast(cast_contract):
    case = grid_case(cast_contract("cast_to_f32_cpu"), "BF16")
    bits = np.ascontiguousarray(case.values[0]).view(np.uint16)
    assert len(set(bits.tolist())) == bits.size > 65000  # all but those cast onto the poison
    assert grid_case(cast_contract("cast_to_f32_cpu"), "F8E4M3").values[0].size == 256
    assert grid_case(cast_contract("cast_to_bf16_cpu"), "F32") is None  # ties are drawn instead


def test_an_integer_target_gets_only_the_values_it_defines(cast_contract):
    values = grid_case(cast_contract("cast_to_u8_cuda"), "F16").values[0].astype(np.float64)
    assert np.isfinite(values).all() and values.min() > -1 and values.max() < 256


def test_a_cast_wrong_on_one_source_value_is_caught(broken_cast, cast_contract):
    class OneValueOff(broken_cast.MiniCast):
        name = "broken-cast-one-value"

        def convert(self, x, dst):
            out = super().convert(x, dst)
            if x.dtype == ml_dtypes.bfloat16:
                out = np.where(x.view(np.uint16) == 0x1235, np.float32(0.0), out)  # one table slot
            return out

    row = run_item(Item(cast_contract("cast_to_f32_cpu"), OneValueOff(), "BF16"), get_profile("ci")).row
    assert row.verdict == "fail" and row.reason.startswith("exact"), row.reason


def test_f32_sources_hold_exact_ties_of_the_target():
    from hypothesis import given, settings

    from oracles.families.cast import _tie_elements

    seen = []

    @settings(max_examples=200, database=None)
    @given(_tie_elements("F32", "BF16"))
    def collect(b):
        seen.append(b)

    collect()
    low = np.array(seen, np.uint64) & 0xFFFF
    assert (low == 0x8000).mean() > 0.4  # exactly halfway between two BF16 values
    assert ((low == 0x7FFF) | (low == 0x8001)).mean() > 0.1  # and their neighbours


def test_no_source_holds_its_reserved_bits(cast_contract):
    """An identity cast copies its input: a grid or drawn value holding the poison (or the
    signalling twin a copy may quiet into it) would read as an unwritten element."""
    from hypothesis import given, settings

    from numerics.values import reserved_bits
    from oracles.families.cast import draw_input

    contract = cast_contract("cast_to_bf16_cuda")
    bits = np.ascontiguousarray(grid_case(contract, "BF16").values[0]).view(np.uint16)
    assert not set(bits.tolist()) & set(reserved_bits("BF16"))
    seen = []

    @settings(max_examples=300, database=None)
    @given(draw_input(None, 0, "BF16", [(16,)], {"dst": "BF16"}))
    def collect(arr):
        seen.extend(arr.view(np.uint16).tolist())

    collect()
    assert not set(seen) & set(reserved_bits("BF16"))


def test_ties_of_a_wider_range_target_stay_source_values():
    """F16 into BF16: BF16's ties below F16's range round to zero in F16; their neighbours are
    F16's smallest subnormals, never a negative bit pattern."""
    from hypothesis import given, settings

    from oracles.families.cast import _tie_elements

    seen = []

    @settings(max_examples=500, database=None)
    @given(_tie_elements("F16", "BF16"))
    def collect(b):
        seen.append(b)

    collect()
    assert min(seen) >= 0 and max(seen) <= 0xFFFF
    assert not {b & 0x7FFF for b in seen} & {0, 0x7C00}
