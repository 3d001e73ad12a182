"""Memory layouts of generated operands: build strided views over guard-filled base buffers.

A ``LayoutRecipe`` says how one logical tensor sits in memory (axis order, steps, stride-0
broadcast axes, start offset, reversed axes). ``build_view`` lays values out accordingly; the
elements between and around them hold guard values, so a kernel that ignores strides reads
garbage and gets caught.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from judge.api import TensorArg, contiguous_strides
from judge.contracts.model import Layout
from judge.formats import get_format

# Guard values: finite, distinct, exactly representable in every float format.
_GUARDS = (-7.25, 3.5, 96.0, -0.375, 11.0, -1.5e2, 0.625)


@dataclass(frozen=True)
class LayoutRecipe:
    perm: tuple[int, ...] = ()  # physical axis order, outermost first (() = identity)
    steps: tuple[int, ...] = ()  # per logical axis (() = all 1)
    broadcast: frozenset[int] = frozenset()  # logical axes laid out with stride 0
    offset: int = 0  # guard elements before the first element
    reverse: frozenset[int] = frozenset()  # logical axes walked with a negative stride

    def describe(self) -> str:
        parts = []
        if self.perm and list(self.perm) != sorted(self.perm):
            parts.append(f"permuted{list(self.perm)}")
        if any(s > 1 for s in self.steps):
            parts.append(f"steps{list(self.steps)}")
        if self.broadcast:
            parts.append(f"stride0{sorted(self.broadcast)}")
        if self.offset:
            parts.append(f"offset={self.offset}")
        if self.reverse:
            parts.append(f"reversed{sorted(self.reverse)}")
        return ", ".join(parts) or "contiguous"


CONTIGUOUS = LayoutRecipe()


def storage_shape(shape: tuple[int, ...], recipe: LayoutRecipe) -> tuple[int, ...]:
    """The shape of the distinct values: broadcast axes hold one value."""
    return tuple(1 if a in recipe.broadcast else s for a, s in enumerate(shape))


def build_view(stored: np.ndarray, shape: tuple[int, ...], recipe: LayoutRecipe, dtype: str) -> TensorArg:
    """Lay ``stored`` (values of ``storage_shape(shape, recipe)``) out as a view of ``shape``."""
    fmt = get_format(dtype)
    rank = len(shape)
    if recipe == CONTIGUOUS or rank == 0 or 0 in shape:
        base = np.ascontiguousarray(np.broadcast_to(stored, shape)).reshape(-1).copy()
        return TensorArg(base, tuple(shape), contiguous_strides(tuple(shape)), 0, dtype)
    tshape = storage_shape(shape, recipe)
    perm = recipe.perm or tuple(range(rank))
    steps = recipe.steps or (1,) * rank
    extents = {a: tshape[a] * steps[a] for a in range(rank)}
    phys = {}
    acc = 1
    for a in reversed(perm):
        phys[a] = acc
        acc *= extents[a]
    strides = []
    first = recipe.offset
    for a in range(rank):
        if a in recipe.broadcast:
            strides.append(0)
            continue
        s = phys[a] * steps[a]
        if a in recipe.reverse:
            first += (tshape[a] - 1) * s
            s = -s
        strides.append(s)
    size = recipe.offset + acc + 2
    guards = np.resize(np.array(_GUARDS, dtype=np.float64), size)
    base = guards.astype(fmt.numpy_dtype) if fmt.is_float else np.zeros(size, fmt.numpy_dtype)
    item = base.itemsize
    target = np.lib.stride_tricks.as_strided(
        base[first:], shape=tshape, strides=tuple(s * item for s in strides), writeable=True
    )
    target[...] = stored
    return TensorArg(base, tuple(shape), tuple(strides), first, dtype)


def layout_features(t: TensorArg) -> set[str]:
    """Which awkward layout features a view uses: strided, broadcast_stride0, start_offset, reverse_strides."""
    feats: set[str] = set()
    if t.size == 0:
        return feats
    if t.offset:
        feats.add("start_offset")
    if any(s == 0 and n > 1 for s, n in zip(t.strides, t.shape, strict=True)):
        feats.add("broadcast_stride0")
    if any(s < 0 for s in t.strides):
        feats.add("reverse_strides")
    dense = contiguous_strides(t.shape)
    if any(s != d and n > 1 and s > 0 for s, d, n in zip(t.strides, dense, t.shape, strict=True)):
        feats.add("strided")
    return feats


def accepted(t: TensorArg, layout: Layout) -> bool:
    """Whether the contract's layout flags admit this view as it is."""
    feats = layout_features(t)
    if feats and layout.contiguous_required:
        return False
    return all(getattr(layout, f) for f in feats)


def materialize(t: TensorArg) -> TensorArg:
    """A contiguous copy, as Fuel's executor makes for a layout the kernel rejects."""
    data = t.to_array().reshape(-1).copy()
    return TensorArg(data, t.shape, contiguous_strides(t.shape), 0, t.dtype)


@st.composite
def layout_recipe(draw, shape: tuple[int, ...], layout: Layout | None = None) -> LayoutRecipe:
    """Contiguous about a third of the time (and where shrinking leads); otherwise awkward.

    Given the operand's layout flags, three awkward recipes in four keep to what the contract
    accepts, so the kernel's own strided, stride-0 or offset paths are what most cases exercise;
    the rest mix in rejected features, which the executor materialises (SPEC §4).
    """
    rank = len(shape)
    if rank == 0 or 0 in shape or draw(st.integers(0, 2)) == 0:
        return CONTIGUOUS
    allow = {"strided": True, "broadcast_stride0": True, "start_offset": True, "reverse_strides": True}
    if layout is not None and not layout.contiguous_required and layout.accepts_any_awkward \
            and draw(st.integers(0, 3)) != 3:
        allow = {f: getattr(layout, f) for f in allow}
    wide = [a for a, s in enumerate(shape) if s > 1]
    perm = tuple(draw(st.permutations(range(rank)))) if allow["strided"] else ()
    steps = tuple(draw(st.sampled_from((1, 1, 2))) for _ in range(rank)) if allow["strided"] else ()
    broadcast = frozenset(a for a in wide if allow["broadcast_stride0"] and draw(st.integers(0, 3)) == 0)
    offset = draw(st.sampled_from((0, 0, 1, 3))) if allow["start_offset"] else 0
    reverse = frozenset(a for a in wide if allow["reverse_strides"] and a not in broadcast
                        and draw(st.integers(0, 3)) == 0)
    recipe = LayoutRecipe(perm=perm, steps=steps, broadcast=broadcast, offset=offset, reverse=reverse)
    if recipe.describe() == "contiguous":
        recipe = _one_feature(shape, wide, allow) or recipe
    return recipe


def _one_feature(shape: tuple[int, ...], wide: list[int], allow: dict[str, bool]) -> LayoutRecipe | None:
    """Every feature drew its plain value: use the first allowed one that changes the memory walk."""
    if wide and allow["strided"]:
        return LayoutRecipe(steps=tuple(2 if a == wide[0] else 1 for a in range(len(shape))))
    if wide and allow["broadcast_stride0"]:
        return LayoutRecipe(broadcast=frozenset(wide[:1]))
    if allow["start_offset"]:
        return LayoutRecipe(offset=1)
    if wide and allow["reverse_strides"]:
        return LayoutRecipe(reverse=frozenset(wide[:1]))
    return None
