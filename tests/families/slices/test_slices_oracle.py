"""The slices reference by hand: slab writes, ring writes that wrap (and a U32 position near
the top, where a sum narrowed to 32 bits would wrap too), exact bits through every write, and
params that do not fit their operands refused; the draws reach the cases that matter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import find, settings
from hypothesis import strategies as st

import oracles
from oracles.families.slices.evaluate import slab_targets
from oracles.family import Budget


def _run(kind, inputs, params, dtype):
    (out,) = oracles.evaluate(kind, inputs, params, [dtype], {})
    return out.expected


def test_write_slice_replaces_the_slab_and_keeps_the_rest():
    dest = np.arange(12, dtype=np.float32).reshape(3, 4)
    source = np.array([[-1, -2], [-3, -4]], dtype=np.float32)
    got = _run("WriteSlice", [dest, source], {"dest_shape": [3, 4], "ranges": [[1, 3], [2, 4]]}, "F32")
    want = dest.copy()
    want[1:3, 2:4] = source
    assert got.tobytes() == want.tobytes()


def test_a_ring_write_wraps_past_the_modulus_and_ignores_the_range_start():
    dest = np.arange(10, 20, dtype=np.uint32).reshape(2, 5)
    source = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.uint32)
    params = {"dest_shape": [2, 5], "axis": 1, "modulus": 4, "ranges": [[0, 2], [2, 5]]}
    got = _run("WriteSliceRotating", [dest, source, np.array(2, dtype=np.uint32)], params, "U32")
    # slots (2 + k) mod 4 = 2, 3, 0; slot 4 lies outside the ring and keeps its value
    assert got.tolist() == [[3, 11, 1, 2, 14], [6, 16, 4, 5, 19]]


def test_a_position_near_the_top_of_u32_is_reduced_exactly():
    top = (1 << 32) - 1  # 2^32 - 1 = 0 (mod 3); a 32-bit sum would wrap to slot 0 on row 1
    assert slab_targets((4,), (3,), {"dest_shape": [4], "axis": 0, "modulus": 3, "ranges": [[0, 3]]},
                        top) == [0, 1, 2]


def test_bits_cross_unchanged():
    payload_nan = np.array([0x7F800001, 0x80000000, 0xFFC00123], dtype=np.uint32).view(np.float32)
    dest = np.zeros(5, dtype=np.float32)
    got = _run("WriteSlice", [dest, payload_nan], {"dest_shape": [5], "ranges": [[2, 5]]}, "F32")
    assert got.view(np.uint32)[2:].tolist() == [0x7F800001, 0x80000000, 0xFFC00123]
    x = np.array([-32768, 7, -1], dtype=np.int16)
    assert _run("Copy", [x], {}, "I16").tobytes() == x.tobytes()


@pytest.mark.parametrize("params", [
    {"dest_shape": [4], "ranges": [[2, 5]]},  # leaves the destination
    {"dest_shape": [4], "ranges": [[0, 2]]},  # holds 2, the source has 3
    {"dest_shape": [5], "ranges": [[0, 3]]},  # not the destination's shape
])
def test_params_that_do_not_fit_are_refused(params):
    with pytest.raises(ValueError):
        slab_targets((4,), (3,), params)


def test_a_ring_wider_than_its_modulus_is_refused():
    with pytest.raises(ValueError, match="modulus"):
        slab_targets((4,), (3,), {"dest_shape": [4], "axis": 0, "modulus": 2, "ranges": [[0, 3]]}, 0)


def _case(kind: str):
    from judge.suite import load_paths

    (contract,) = [c for c in load_paths(None).registrable if c.op_kind == kind]
    family, opdef = oracles.family_of(kind), oracles.get(kind)

    @st.composite
    def drawn(draw):
        shapes, params = family.draw_shapes(draw, contract, opdef, Budget())
        values = [draw(family.draw_input(opdef, i, d, shapes, params))
                  for i, d in enumerate(("F32", "F32", "U32")[:len(shapes)])]
        return shapes, params, values

    return drawn()


def _wraps(case) -> bool:
    shapes, params, values = case
    axis, modulus = params["axis"], params["modulus"]
    return int(values[2]) % modulus + shapes[1][axis] > modulus


def _find(strategy, condition):
    return find(strategy, condition, settings=settings(database=None, max_examples=2000))


def test_the_draws_reach_wrapping_rings_high_positions_and_slabs_at_the_end():
    _find(_case("WriteSliceRotating"), _wraps)
    _find(_case("WriteSliceRotating"), lambda c: int(c[2][2]) >= 1 << 31)
    _find(_case("WriteSlice"), lambda c: any(e == n > s for (s, e), n in zip(c[1]["ranges"], c[0][0], strict=True)))
    _find(_case("Copy"), lambda c: np.prod(c[0][0]) % 2 == 1 and np.prod(c[0][0]) > 1)
