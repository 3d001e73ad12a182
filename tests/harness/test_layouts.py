"""Views over guard-filled buffers: every recipe reproduces the logical values exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.api import TensorArg
from judge.contracts.model import Layout
from judge.layouts import (
    CONTIGUOUS,
    LayoutRecipe,
    accepted,
    build_view,
    layout_features,
    layout_recipe,
    materialize,
    storage_shape,
)

CONTIGUOUS_ONLY = Layout(True, False, False, False, False)


@st.composite
def shaped_recipe(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    return shape, draw(layout_recipe(shape, draw(st.sampled_from([None, CONTIGUOUS_ONLY]))))


@given(shaped_recipe(), st.sampled_from(["F32", "F64", "F16", "BF16"]))
def test_view_holds_the_logical_values(sr, dtype):
    from numerics.formats import get_format

    shape, recipe = sr
    fmt = get_format(dtype)
    stored = np.arange(int(np.prod(storage_shape(shape, recipe))), dtype=np.float64).reshape(
        storage_shape(shape, recipe)).astype(fmt.numpy_dtype)
    t = build_view(stored, shape, recipe, dtype)
    np.testing.assert_array_equal(t.view(), np.broadcast_to(stored, shape))
    m = materialize(t)
    assert m.is_contiguous() and layout_features(m) == set()
    np.testing.assert_array_equal(m.view(), t.view())


def test_features_and_acceptance():
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    strided = build_view(v, (2, 3), LayoutRecipe(perm=(1, 0)), "F32")
    assert layout_features(strided) == {"strided"}
    offset = build_view(v, (2, 3), LayoutRecipe(offset=2), "F32")
    assert layout_features(offset) == {"start_offset"}
    rev = build_view(v, (2, 3), LayoutRecipe(reverse=frozenset({1})), "F32")
    assert "reverse_strides" in layout_features(rev)
    bcast = build_view(v[:1], (2, 3), LayoutRecipe(broadcast=frozenset({0})), "F32")
    assert layout_features(bcast) == {"broadcast_stride0"} and bcast.strides[0] == 0
    strided_ok = Layout(False, True, True, False, False)
    assert accepted(strided, strided_ok) and accepted(bcast, strided_ok)
    assert not accepted(offset, strided_ok) and not accepted(rev, strided_ok)
    assert not accepted(strided, CONTIGUOUS_ONLY)
    assert accepted(build_view(v, (2, 3), CONTIGUOUS, "F32"), CONTIGUOUS_ONLY)


def test_rejected_layouts_cover_every_feature():
    """An operand the contract wants contiguous still gets each awkward feature, for the executor
    to materialise, from a short menu drawn as one choice."""
    from hypothesis import find

    shape = (3, 4)
    for feature in ("strided", "broadcast_stride0", "start_offset", "reverse_strides"):
        find(layout_recipe(shape, CONTIGUOUS_ONLY),
             lambda r, f=feature: f in layout_features(build_view(
                 np.zeros(storage_shape(shape, r), np.float32), shape, r, "F32")))


def test_guards_surround_the_values():
    v = np.ones((2, 2), dtype=np.float32)
    t = build_view(v, (2, 2), LayoutRecipe(steps=(2, 2), offset=1), "F32")
    touched = np.zeros(t.base.size, bool)
    for idx in np.ndindex(*t.shape):
        touched[t.offset + sum(i * s for i, s in zip(idx, t.strides, strict=True))] = True
    assert (t.base[touched] == 1).all()
    assert (t.base[~touched] != 1).all(), "guard values must differ from the data"


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2)])
def test_degenerate_shapes_are_contiguous(shape):
    t = build_view(np.zeros(shape, np.float32), shape, LayoutRecipe(offset=3), "F32")
    assert isinstance(t, TensorArg) and t.offset == 0
