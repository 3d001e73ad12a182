"""QMatMul and Nf4Matmul for numpy-API libraries (merged into ``XP_TABLE``): the weight
dequantized to binary32 on the host (``_quant_blocks``, as the Fuel CPU wrapper does before its
dot products), then ``xp.matmul`` of the activations widened to f32 against its transpose, the
result rounded to T once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _dims(p) -> tuple[int, int, int, int]:
    batch = p["batch_count"] if "batch_count" in p else p["batch"]
    return int(batch), int(p["m"]), int(p["n"]), int(p["k"])


def _product(env, a, w):
    xp = env.xp
    return xp.matmul(a.astype(xp.float32), xp.asarray(w).T).astype(env.compute)


def _qmatmul(env, args: Sequence[Any]):
    import numpy as np

    from backends._quant_blocks import gguf_rows

    a, words = args
    _, _, n, k = _dims(env.op.params)
    raw = np.asarray(words, dtype="<u4").view(np.uint8)
    return _product(env, a, gguf_rows(raw, str(env.op.params["quant_type"]), n, k))


def _nf4(env, args: Sequence[Any]):
    import numpy as np

    from backends._quant_blocks import nf4_rows

    a, packed, absmax = args
    _, _, n, k = _dims(env.op.params)
    w = nf4_rows(np.asarray(packed), np.asarray(absmax), n, k, int(env.op.params["block_size"]))
    return _product(env, a, w)


XP_QUANT = {"QMatMul": _qmatmul, "Nf4Matmul": _nf4}
