"""Fuel's data-movement op params decoded into the arguments a library kernel takes (shared by
the numpy-API and torch tables): the [outer, axis, inner] views, the fill element's bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MOVE_KINDS = ("Concat", "IndexSelect", "Gather", "Flip", "Roll", "Triu", "Tril", "MaskedFill")


def select_slab(params: Mapping[str, Any]) -> tuple[tuple[int, int, int], int]:
    """IndexSelect: ((outer, source_dim, inner) view of the source, index count)."""
    p = {k: int(params[k]) for k in ("outer_count", "source_dim_size", "n_indices", "inner_count")}
    return (p["outer_count"], p["source_dim_size"], p["inner_count"]), p["n_indices"]


def fill_bytes(params: Mapping[str, Any], itemsize: int) -> bytes:
    """MaskedFill: the pre-encoded fill element (little-endian), checked to be one element."""
    raw = bytes(int(b) for b in params["fill_bytes"])
    if len(raw) != itemsize:
        raise ValueError(f"fill_bytes holds {len(raw)} bytes, the output element {itemsize}")
    return raw


def triangle(params: Mapping[str, Any]) -> int:
    """Triu/Tril: the signed diagonal offset."""
    return int(params["diagonal"])
