"""The quantized matmuls' error inputs (``Family.break_rule``): a contraction length k that a
stated divisibility (``k % 2 == 0``, ``k % block_size == 0``) refuses, every operand sized for
that k as the wrapper would read it (activations ``[.., k]``, packed weights ``[n, ceil(k/2)]``,
one absmax per started block)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.random import Generator


def _grow(a: np.ndarray, width: int, rng: Generator) -> np.ndarray:
    """``a`` with its last axis made ``width`` long: cut, or extended by copies of its own
    columns (values the valid case drew)."""
    have = a.shape[-1]
    if width <= have or have == 0:
        return np.ascontiguousarray(a[..., :width]) if width <= have else np.zeros(
            (*a.shape[:-1], width), a.dtype)
    extra = a[..., rng.integers(0, have, width - have)]
    return np.ascontiguousarray(np.concatenate([a, extra], axis=-1))


def _broken_k(expr: str, params: dict, rng) -> int | None:
    k, block = int(params["k"]), int(params.get("block_size", 0) or 0)
    if expr.replace(" ", "") == "k%2==0":
        return k + 1 if rng.integers(0, 2) or k < 2 else k - 1
    if expr.replace(" ", "") == "k%block_size==0" and block > 2:
        step = 2 * int(rng.integers(1, block // 2))  # stays even: only this rule breaks
        return k + step
    return None


def break_rule(contract, opdef, rule, values, params, rng):
    """The Nf4Matmul case with k moved off the multiple the rule states."""
    if rule.kind != "divisible" or opdef.op_kind != "Nf4Matmul" or len(values) != 3:
        return None
    k = _broken_k(rule.expr or "", params, rng)
    if k is None:
        return None
    block = int(params["block_size"])
    acts, packed, absmax = values
    out = dict(params, k=k)
    return (_grow(acts, k, rng), _grow(packed, -(-k // 2), rng), _grow(absmax, -(-k // block), rng)), out
