"""Fuel's scatter op params decoded into the arguments a library kernel takes (shared by the
numpy-API and torch tables): ScatterAdd's axis, IndexAdd's [outer, axis, inner] views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCATTER_KINDS = ("ScatterAdd", "IndexAdd")


def scatter_dim(params: Mapping[str, Any]) -> int:
    """ScatterAdd: the scattered axis."""
    return int(params["dim"])


def index_slabs(params: Mapping[str, Any]) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """IndexAdd: the (outer, base_dim, inner) view of base and out, and the (outer, n, inner)
    view of src."""
    outer, size, n, inner = (int(params[k]) for k in ("outer_count", "base_dim_size", "n_indices", "inner_count"))
    return (outer, size, inner), (outer, n, inner)
