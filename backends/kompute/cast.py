"""Cast on Vulkan: the F32 <-> F16 and F32 <-> BF16 shaders (``shaders/cast.comp``), contiguous.

16-bit data travels packed two per uint32 word; the launcher passes the element count and picks
the program by (source, target). Other pairs (F64, F8E4M3) have no shader here.
"""

from __future__ import annotations

import numpy as np

from backends.kompute import device
from backends.kompute.launch import _meta, _poison_words, _result
from backends.kompute.layout import check_contiguous, words_of
from backends.kompute.ops import OpEntry
from judge.api import KernelCall

# (source, target) -> program; the threads each needs: one per output word when narrowing.
PAIRS = {("F32", "F16"): "cast_f32_f16", ("F16", "F32"): "cast_f16_f32",
         ("F32", "BF16"): "cast_f32_bf16", ("BF16", "F32"): "cast_bf16_f32"}


def cast_support(contract, dtypes) -> bool | str:
    """True for the pairs with a shader; else why not."""
    dst = contract.outputs[0].dtype_rule.dtype if contract.outputs else None
    missing = [d for d in dtypes if (d, dst) not in PAIRS]
    if missing:
        return (f"no Vulkan cast shader for {', '.join(f'{d}->{dst}' for d in missing)} "
                f"(shaders: {', '.join(f'{a}->{b}' for a, b in PAIRS)})")
    return True


def run_cast(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    check_contiguous(x, f"{kernel} input 0")
    out = call.outputs[0]
    shape = tuple(out.shape)
    if tuple(x.shape) != shape:
        raise ValueError(f"{kernel}: input shape {x.shape} differs from output shape {shape}")
    program = PAIRS.get((x.dtype, out.dtype))
    if program is None:
        raise ValueError(f"{kernel}: no Vulkan cast shader for {x.dtype}->{out.dtype}")
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return [_result(np.zeros(0, np.uint32), out.dtype, shape)]
    threads = (n + 1) // 2 if out.dtype != "F32" else n
    words = device.dispatch(program, [words_of(x.base[:n])], _poison_words(call, n),
                            _meta(n, entry.op_id), threads=threads)
    return [_result(words, out.dtype, shape)]


CAST_LAUNCHERS = {"cast": run_cast}
