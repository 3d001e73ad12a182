"""QMatMul and Nf4Matmul for torch (merged into ``TORCH_TABLE``). torch has no kernel for either
stored format: the weight is dequantized to binary32 by the adapters' shared decoding
(``_quant_blocks``, what the Fuel CPU wrapper does first), then ``torch.matmul`` of the
activations widened to f32 against its transpose, rounded to T once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _dims(p) -> tuple[int, int, int, int]:
    batch = p["batch_count"] if "batch_count" in p else p["batch"]
    return int(batch), int(p["m"]), int(p["n"]), int(p["k"])


def _host(t):
    return t.detach().contiguous().cpu().numpy()


def _product(env, a, w):
    torch = env.torch
    weight = torch.from_numpy(w).to(a.device)
    return torch.matmul(a.to(torch.float32), weight.T).to(a.dtype)


def _qmatmul(env, args: Sequence[Any]):
    import numpy as np

    from backends._quant_blocks import gguf_rows

    a, words = args
    _, _, n, k = _dims(env.op.params)
    raw = _host(words).astype("<u4").view(np.uint8)
    return _product(env, a, gguf_rows(raw, str(env.op.params["quant_type"]), n, k))


def _nf4(env, args: Sequence[Any]):
    from backends._quant_blocks import nf4_rows

    a, packed, absmax = args
    _, _, n, k = _dims(env.op.params)
    w = nf4_rows(_host(packed), _host(absmax), n, k, int(env.op.params["block_size"]))
    return _product(env, a, w)


TORCH_QUANT = {"QMatMul": _qmatmul, "Nf4Matmul": _nf4}
