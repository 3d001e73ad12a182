"""Memory layouts of generated operands: build strided views over guard-filled base buffers.

A ``LayoutRecipe`` says how one logical tensor sits in memory (axis order, steps, stride-0
broadcast axes, start offset, reversed axes). ``build_view`` lays values out accordingly; the
elements between and around them hold guard values, so a kernel that ignores strides reads
garbage and gets caught.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np
from hypothesis import strategies as st

from judge.api import TensorArg, contiguous_strides
from judge.contracts.model import Layout
from numerics.formats import get_format

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


# The fast paths a contract's ``caps.fast_paths[].when`` may name, in the order reports list them.
FAST_PATHS = ("all_inputs_contiguous", "any_input_strided", "any_input_broadcast")


def fast_paths_taken(inputs) -> frozenset[str]:
    """Which declared fast paths a call takes, from its operands as the kernel receives them
    (after the executor materialised what the contract rejects): every one contiguous; some
    strided (a step, a reversed axis or a start offset: not one dense walk from the base); some
    broadcast (a stride-0 axis). A call may take both awkward paths."""
    feats = [layout_features(t) for t in inputs]
    taken = set()
    if all(not f for f in feats):
        taken.add("all_inputs_contiguous")
    if any(f & {"strided", "reverse_strides", "start_offset"} for f in feats):
        taken.add("any_input_strided")
    if any("broadcast_stride0" in f for f in feats):
        taken.add("any_input_broadcast")
    return frozenset(taken)


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
    """``draw_layout`` as a strategy."""
    return draw_layout(draw, shape, layout)


# Strategies built once: a fresh ``sampled_from`` per draw is validated and labelled each time.
_ONE_IN_THREE, _ONE_IN_FOUR = st.integers(0, 2), st.integers(0, 3)
_OFFSETS = st.sampled_from((0, 0, 1, 3))


@cache
def _digits(base: int, count: int) -> st.SearchStrategy[int]:
    """``count`` digits in ``base`` as one choice (a choice per axis cost more than the rest of
    the layout); a digit at its top value picks its axis, so shrinking leads to none."""
    return st.integers(0, base ** count - 1)


@cache
def _permutations(rank: int) -> tuple[tuple[int, ...], ...]:
    return tuple(itertools.permutations(range(rank)))  # the identity first: where shrinking leads


def _picked(number: int, base: int, axes) -> frozenset[int]:
    """The axes (in order) whose digit of ``number`` in ``base`` is the top value."""
    chosen = []
    for a in axes:
        number, digit = divmod(number, base)
        if digit == base - 1:
            chosen.append(a)
    return frozenset(chosen)


def draw_layout(draw, shape: tuple[int, ...], layout: Layout | None = None) -> LayoutRecipe:
    """Contiguous about a third of the time (and where shrinking leads); otherwise awkward.

    Given the operand's layout flags, three awkward recipes in four keep to what the contract
    accepts, so the kernel's own strided, stride-0 or offset paths are what most cases exercise;
    the rest mix in rejected features, which the executor materialises (SPEC §4). Each feature
    picks its axes with about the same odds: a step of 2 one axis in three, stride 0 and a
    reversed walk one wide axis in four.
    """
    rank = len(shape)
    if rank == 0 or 0 in shape:
        return CONTIGUOUS
    if layout is not None and layout.contiguous_required:
        # The kernel only ever sees the executor's contiguous copy: what is left to exercise is
        # the materialisation, and a few recipes cover it, at one choice instead of eight.
        recipes = _rejected(shape)
        k = draw(st.integers(0, 3 * len(recipes) - 1))  # the first third: contiguous
        return CONTIGUOUS if k < len(recipes) else recipes[(k - len(recipes)) // 2]
    if draw(_ONE_IN_THREE) == 0:
        return CONTIGUOUS
    allow = {"strided": True, "broadcast_stride0": True, "start_offset": True, "reverse_strides": True}
    if layout is not None and layout.accepts_any_awkward and draw(_ONE_IN_FOUR) != 3:
        allow = {f: getattr(layout, f) for f in allow}
    wide = [a for a, s in enumerate(shape) if s > 1]
    perms = _permutations(rank)
    perm = perms[draw(st.integers(0, len(perms) - 1))] if allow["strided"] else ()
    doubled = _picked(draw(_digits(3, rank)), 3, range(rank)) if allow["strided"] else frozenset()
    steps = tuple(2 if a in doubled else 1 for a in range(rank)) if allow["strided"] else ()
    broadcast = _picked(draw(_digits(4, len(wide))), 4, wide) if allow["broadcast_stride0"] and wide else frozenset()
    offset = draw(_OFFSETS) if allow["start_offset"] else 0
    free = [a for a in wide if a not in broadcast]
    reverse = _picked(draw(_digits(4, len(free))), 4, free) if allow["reverse_strides"] and free else frozenset()
    recipe = LayoutRecipe(perm=perm, steps=steps, broadcast=broadcast, offset=offset, reverse=reverse)
    if recipe.describe() == "contiguous":
        recipe = _one_feature(shape, wide, allow) or recipe
    return recipe


def _single_features(shape: tuple[int, ...], wide: list[int]) -> dict[str, LayoutRecipe]:
    """Each layout feature alone, on the first wide axis, that changes the memory walk."""
    singles = {"start_offset": LayoutRecipe(offset=1)}
    if wide:
        singles.update(
            strided=LayoutRecipe(steps=tuple(2 if a == wide[0] else 1 for a in range(len(shape)))),
            broadcast_stride0=LayoutRecipe(broadcast=frozenset(wide[:1])),
            reverse_strides=LayoutRecipe(reverse=frozenset(wide[:1])))
    return singles


@cache
def _rejected(shape: tuple[int, ...]) -> tuple[LayoutRecipe, ...]:
    """Awkward recipes for an operand the contract wants contiguous: each feature alone, the axes
    in reverse order, and all of them at once."""
    rank = len(shape)
    wide = [a for a, s in enumerate(shape) if s > 1]
    singles = _single_features(shape, wide)
    recipes = [singles[f] for f in ("start_offset", "strided", "broadcast_stride0", "reverse_strides")
               if f in singles]
    if rank > 1:
        recipes.append(LayoutRecipe(perm=tuple(reversed(range(rank)))))
    recipes.append(LayoutRecipe(perm=tuple(reversed(range(rank))), steps=(2,) * rank, offset=3,
                                broadcast=frozenset(wide[:1]) if len(wide) > 1 else frozenset(),
                                reverse=frozenset(wide[-1:]) if len(wide) > 1 else frozenset(wide)))
    return tuple(dict.fromkeys(recipes))


def _one_feature(shape: tuple[int, ...], wide: list[int], allow: dict[str, bool]) -> LayoutRecipe | None:
    """Every feature drew its plain value: use the first allowed one that changes the memory walk."""
    singles = _single_features(shape, wide)
    return next((singles[f] for f in ("strided", "broadcast_stride0", "start_offset", "reverse_strides")
                 if f in singles and allow[f]), None)
