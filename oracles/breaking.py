"""What the families' error inputs share (``Family.break_rule``): an index past its axis."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.random import Generator


def index_out_of_range(indices: np.ndarray, bound: int, rng: Generator) -> np.ndarray | None:
    """A copy of ``indices`` (unsigned) with one element moved past ``bound`` (an axis of
    ``bound`` elements): the first index past the end, one a little further, or the largest the
    dtype holds (a -1 read as unsigned). None where there is no index to move."""
    if indices.size == 0:
        return None
    top = int(np.iinfo(indices.dtype).max)
    choices = [bound, bound + int(rng.integers(1, 4)), top]
    value = min(choices[int(rng.integers(0, len(choices)))], top)
    out = indices.copy().reshape(-1)
    out[int(rng.integers(0, out.size))] = value
    return out.reshape(indices.shape)
