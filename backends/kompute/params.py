"""Op params as the raw words the shaders read from the metadata block (M_PARAM onwards).

Scalars are consumed at the kernel's compute precision: f32 bits for the f32/f16/bf16 builds
(the contracts say "consumed at f32"), two words of f64 bits (low word first, as
packDouble2x32 expects) for the f64 build.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def _first(params: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in params and params[name] is not None:
            return params[name]
    raise KeyError(f"op params {dict(params)!r} have none of {names}")


def _scalars(values: list[float], dtype: str) -> list[int]:
    if dtype == "F64":
        return [int(w) for w in np.array(values, dtype=np.float64).view(np.uint32)]
    return [int(w) for w in np.array(values, dtype=np.float32).view(np.uint32)]


def param_words(kind: str, params: Mapping[str, Any], dtype: str) -> list[int]:
    if kind == "none":
        return []
    if kind == "affine":
        return _scalars([float(_first(params, "mul")), float(_first(params, "add"))], dtype)
    if kind == "clamp":
        lo = float(_first(params, "lo", "min"))
        hi = float(_first(params, "hi", "max"))
        return _scalars([lo, hi], dtype)
    if kind == "powi":
        return [int(np.array([int(_first(params, "exp"))], dtype=np.int32).view(np.uint32)[0])]
    raise ValueError(f"unknown param packing {kind!r}")
