"""Cast for torch (CPU and CUDA): ``Tensor.to(dtype)``, torch's own conversion kernel."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TORCH_NAMES = {"F32": "float32", "F64": "float64", "F16": "float16", "BF16": "bfloat16",
               "F8E4M3": "float8_e4m3fn", "I32": "int32", "U32": "uint32", "I64": "int64",
               "U8": "uint8", "I8": "int8", "I16": "int16"}


def _cast(env, args: Sequence[Any]):
    return args[0].to(getattr(env.torch, TORCH_NAMES[env.op.out_dtypes[0]]))


TORCH_CAST: dict[str, Any] = {"Cast": _cast}
