"""The oracle's certified vectorised fast path (SPEC §6), with the pure path as its fallback.

What it does. For the elementwise OpKinds listed in ``oracles.fast.kernels.KERNELS`` and outputs
in F32, F16 or BF16 (inputs in those formats too), each element is first *approximated* in
binary64 with numpy array arithmetic, together with a proven bound E on its relative error:
|v − y| <= E·|y| for the exact value v and the approximation y. The element is *certified* when
every real number in [y − E·|y|, y + E·|y|] rounds (to nearest even, subnormals, overflow to ±inf)
to the same bits of the output format; those bits are then the correctly rounded result, the same
bits the pure path computes. Every element that is not certified — a NaN, ±inf or zero operand,
an argument outside the kernel's domain, a value too close to a rounding boundary — goes to the
pure path (``OpDef.evaluate`` as ``oracles.table`` defines it), whose answer is used unchanged.

Why ground truth stays independent (SPEC §2, §6). The approximations use only IEEE 754 basic
operations on binary64 arrays (+ − × ÷ and square root, each correctly rounded by the standard,
and conversions between formats), integer and bit operations, and table values computed exactly
by the oracle itself; no libm or numpy transcendental and no kernel that a backend is judged on is
asked for a value. Each kernel's error bound is derived beside it (``oracles.fast.kernels`` and
the modules it gathers) from the standard's guarantee fl(a ∘ b) = (a ∘ b)(1 + δ), |δ| <= u =
2^-53, and from the truncation error of its series, with a margin on top. A wrong approximation can therefore only cost speed: an
element is never certified unless the whole error interval lies inside one rounding interval, and
everything else is decided by the exact path. As a second line of defence, every call re-evaluates
a random sample of its certified elements with the pure path and raises ``FastPathMismatch`` on any
difference (``oracles.fast.dispatch.CROSS_CHECK``).

The ``exact`` value reported for a certified element is its binary64 approximation y (a Python
float) with the stated relative error (below 2^-40 everywhere, far below the three decimals of a
ULP-real error); the pure path's own ``exact`` is an approximation of the same kind (the Ziv loop's
last value, relative error below 2^-28 for 16-bit formats). Products of two operands of these
formats are exact in binary64, so ``exact`` is exact for MulElementwise.

Where it applies. ``OpDef.__post_init__`` wraps each covered OpKind's evaluate with
``accelerate``, so every caller (the runner, ``judge audit``, sweeps) gets the fast path; the pure
function stays reachable as ``pure(evaluate)``. Calls with fewer than 64 elements
(``dispatch.MIN_ELEMENTS``; the pure path is as fast there), F64 outputs and other formats, and an
unusual floating-point environment (flush-to-zero) take the pure path whole. ``disabled()`` (a
context manager) and ``JUDGE_ORACLE_FAST=0`` turn the fast path off; sweep tables are built with
it off.

Nothing is imported or computed when this package is imported: ``accelerate`` only wraps the
table's evaluate functions; numpy work starts at the first call.
"""

from __future__ import annotations

import contextlib
import os
import threading

from oracles.fast.errors import FastPathMismatch

__all__ = ["FastPathMismatch", "accelerate", "covered", "disabled", "pure"]

_state = threading.local()


def covered() -> frozenset[str]:
    """The OpKinds the fast path can evaluate (for F32, F16 and BF16 outputs)."""
    from oracles.fast.kernels import KERNELS

    return frozenset(KERNELS)


def _enabled() -> bool:
    """On unless ``disabled()`` is in force or the environment says JUDGE_ORACLE_FAST=0."""
    return not getattr(_state, "off", False) and os.environ.get("JUDGE_ORACLE_FAST", "1") != "0"


@contextlib.contextmanager
def disabled():
    """Evaluate with the pure path only, in this thread, inside the ``with`` block."""
    before = getattr(_state, "off", False)
    _state.off = True
    try:
        yield
    finally:
        _state.off = before


def pure(evaluate):
    """The pure evaluate function behind an accelerated one (itself if not accelerated)."""
    return getattr(evaluate, "pure", evaluate)


_NAMES = frozenset({
    "ExpElementwise", "LogElementwise", "TanhElementwise", "SinElementwise", "CosElementwise",
    "SigmoidElementwise",
    "SiluElementwise", "GeluElementwise", "ErfElementwise", "GeluErfElementwise",
    "SqrtElementwise", "RsqrtElementwise",
    "RecipElementwise", "AddElementwise", "SubElementwise", "MulElementwise", "DivElementwise",
})  # kept equal to kernels.KERNELS by a test; spelled here so that wrapping imports nothing


def accelerate(op_kind: str, evaluate):
    """``evaluate`` wrapped with the fast path where ``op_kind`` has a kernel, else unchanged."""
    if op_kind not in _NAMES or hasattr(evaluate, "pure"):
        return evaluate

    def accelerated(inputs, params, out_dtypes, rules):
        if _enabled():
            from oracles.fast.dispatch import evaluate_fast

            out = evaluate_fast(op_kind, evaluate, inputs, params, out_dtypes, rules)
            if out is not None:
                return out
        return evaluate(inputs, params, out_dtypes, rules)

    accelerated.pure = evaluate
    accelerated.__name__ = getattr(evaluate, "__name__", "evaluate")
    accelerated.__doc__ = getattr(evaluate, "__doc__", None)
    return accelerated
