"""Cast on Vulkan, contiguous: F32 <-> F16 and F32 <-> BF16 (``shaders/cast.comp``), F32 <-> F64
and F8E4M3 <-> F32, F16, BF16 (``shaders/cast_bits.comp``, integer arithmetic on the bits).

Data travels as uint32 words (8-bit data four per word, 16-bit two per word, F64 two words per
element); the launcher passes the element count and picks the program by (source, target).
"""

from __future__ import annotations

import numpy as np

from backends.kompute import device
from backends.kompute.launch import _meta, _poison_words, _result
from backends.kompute.layout import check_contiguous, words_of
from backends.kompute.ops import OpEntry
from backends.kompute.programs import BIT_CASTS
from judge.api import KernelCall

# (source, target) -> program.
PAIRS = {(a.upper(), b.upper()): f"cast_{a}_{b}"
         for a, b in (("f32", "f16"), ("f16", "f32"), ("f32", "bf16"), ("bf16", "f32"), *BIT_CASTS)}
# Output elements one thread writes: a whole uint32 word of narrow data, one F32/F64 element
# (the widening shaders of cast.comp run one thread per element).
_PER_THREAD = {"F8E4M3": 4, "F16": 2, "BF16": 2}


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
    per = _PER_THREAD.get(out.dtype, 1)
    threads = -(-n // per)
    words = device.dispatch(program, [words_of(x.base[:n])], _poison_words(call, n),
                            _meta(n, entry.op_id), threads=threads)
    return [_result(words, out.dtype, shape)]


CAST_LAUNCHERS = {"cast": run_cast}
