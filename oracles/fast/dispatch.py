"""One fast evaluation: split the elements, certify, hand the rest to the pure path, cross-check.

``evaluate_fast`` returns None when the call is not one the fast path takes (an output or input
format other than F32/F16/BF16, fewer than ``MIN_ELEMENTS`` elements, an unusual floating-point
environment); the caller then runs the pure path on the whole call.
"""

from __future__ import annotations

import numpy as np

from oracles.fast.certify import certify
from oracles.fast.errors import FastPathMismatch
from oracles.fast.kernels import KERNELS
from oracles.output import OracleOutput

FORMATS = ("F32", "F16", "BF16")
CROSS_CHECK = 16  # at most this many certified elements per call re-evaluated by the pure path:
CROSS_CHECK_EVERY = 1 << 16  # one per call, plus one per 65,536 certified elements
BLOCK = 8192
MIN_ELEMENTS = 64  # below this the pure path is as fast (numpy's per-call cost, the cross-check)
_ABS = np.uint64((1 << 63) - 1)
_INF = np.uint64(0x7FF0 << 48)
_rng = None
stats = {"calls": 0, "elements": 0, "certified": 0, "pure": 0, "cross_checked": 0}


def _format_of(dtype) -> str | None:
    from numerics.formats import dtype_name

    try:
        return dtype_name(np.dtype(dtype))
    except (KeyError, TypeError, ValueError):
        return None


def _out_format(out_dtypes) -> str | None:
    d = out_dtypes[0]
    return d if isinstance(d, str) else _format_of(d)


def _environment_ok() -> bool:
    """Round to nearest with gradual underflow (a flush-to-zero mode would break the bounds)."""
    tiny = np.array([2.0**-1074, 2.0**-149], dtype=np.float64)
    return bool(((tiny * 1.0).view(np.uint64) == tiny.view(np.uint64)).all()
                and tiny.astype(np.float32).view(np.uint32)[1] == 1)


def _regular(x: np.ndarray) -> np.ndarray:
    """Finite and nonzero, from the encoding."""
    mag = x.view(np.uint64) & _ABS
    return (mag != 0) & (mag < _INF)


def evaluate_fast(op_kind, pure_evaluate, inputs, params, out_dtypes, rules):
    from numerics.rounding import float_spec
    from oracles.shapes import broadcast

    arity, kernel = KERNELS[op_kind]
    fmt = _out_format(out_dtypes)
    if fmt not in FORMATS or len(inputs) < arity:
        return None
    arrays = [np.asarray(a) for a in inputs[:arity]]
    if any(_format_of(a.dtype) not in FORMATS for a in arrays):
        return None
    if arity == 1:
        shape, views = arrays[0].shape, arrays[:1]
    else:
        shape, views = broadcast(arrays)
    flat = [np.ascontiguousarray(v).reshape(-1) for v in views]  # input format, C order
    n = flat[0].size
    if n < MIN_ELEMENTS or not _environment_ok():
        return None
    s = float_spec(fmt)
    with np.errstate(all="ignore"):
        xs = [f.astype(np.float64) for f in flat]  # exact: every input format fits binary64
        regular = _regular(xs[0])
        for x in xs[1:]:
            regular &= _regular(x)
        reg = np.flatnonzero(regular)
        args = [x[reg] for x in xs] if reg.size != n else xs
        y, bits, decided = _blocks(kernel, args, s)
    done = reg[decided] if reg.size != n else np.flatnonzero(decided)
    out_bits = np.zeros(n, dtype=s.bits_dtype)
    approx = np.empty(n)
    out_bits[done] = bits[decided]
    approx[done] = y[decided]
    rest = np.ones(n, dtype=bool)
    rest[done] = False
    todo = np.flatnonzero(rest)
    pure_exact = []
    if todo.size:
        sub = _pure(pure_evaluate, [f[todo] for f in flat], params, out_dtypes, rules)
        if sub is None:
            return None
        out_bits[todo] = sub.expected.view(s.bits_dtype).reshape(-1)
        pure_exact = _object_values(sub.exact, todo.size)
    if not _cross_check(op_kind, pure_evaluate, flat, params, out_dtypes, rules, done, out_bits,
                        approx, fmt):
        return None
    stats["calls"] += 1
    stats["elements"] += n
    stats["certified"] += int(done.size)
    stats["pure"] += int(todo.size)
    return [FastOutput.of(out_bits.view(s.dtype).reshape(shape), approx, todo, pure_exact)]


class FastOutput(OracleOutput):
    """An ``OracleOutput`` whose ``exact`` object array is built when first read: Python objects
    for a million elements would cost ten times the evaluation itself. ``exact`` holds the
    binary64 approximation (a float) of every certified element and the pure path's exact value
    of every other element, as documented in ``oracles.fast``."""

    @classmethod
    def of(cls, expected, approx, todo, pure_exact) -> FastOutput:
        out = object.__new__(cls)
        for name, value in (("expected", expected), ("terms", None), ("acc_format", None),
                            ("admitted", None), ("_approx", approx), ("_todo", todo),
                            ("_pure_exact", pure_exact), ("_exact", None)):
            object.__setattr__(out, name, value)
        return out

    @property
    def exact(self):
        if self._exact is None and self._approx is not None:
            values = np.empty(self._approx.size, dtype=object)
            values[:] = self._approx.tolist()
            for i, v in zip(self._todo.tolist(), self._pure_exact, strict=True):
                values[i] = v
            object.__setattr__(self, "_exact", values.reshape(self.expected.shape))
        return self._exact

    @exact.setter
    def exact(self, value):  # dataclasses.replace and the dataclass __init__ come through here
        object.__setattr__(self, "_exact", value)
        object.__setattr__(self, "_approx", None)


def _blocks(kernel, args, s):
    """Kernel and certification over blocks of BLOCK elements (their temporaries stay in cache:
    three to four times faster than whole-array passes at a million elements)."""
    m = args[0].size
    if m <= BLOCK:
        y, bound, ok = kernel(*args)
        bits, decided = certify(y, bound, s)
        return y, bits, decided if ok is None else decided & ok
    y = np.empty(m)
    bits = np.empty(m, dtype=s.bits_dtype)
    decided = np.empty(m, dtype=bool)
    for start in range(0, m, BLOCK):
        part = slice(start, start + BLOCK)
        y[part], bits[part], decided[part] = _blocks(kernel, [a[part] for a in args], s)
    return y, bits, decided


def _pure(pure_evaluate, inputs, params, out_dtypes, rules):
    (out,) = pure_evaluate(inputs, params, out_dtypes, rules)
    if out.terms is not None or out.admitted is not None:
        return None  # a shape of result this merge does not know: the pure path takes the call
    return out


def _object_values(exact, n: int) -> list:
    if exact is None:
        return [None] * n
    return list(np.asarray(exact, dtype=object).reshape(-1))


def _cross_check(op_kind, pure_evaluate, flat, params, out_dtypes, rules, done, out_bits, approx, fmt):
    """Re-evaluate random certified elements with the pure path; False where the pure path
    answers in a shape this merge does not produce (admitted alternatives, reduction terms)."""
    global _rng
    if not CROSS_CHECK or done.size == 0:
        return True
    if _rng is None:
        _rng = np.random.default_rng(0x0C0FFEE)
    k = min(CROSS_CHECK, 1 + done.size // CROSS_CHECK_EVERY)
    pick = done[_rng.integers(0, done.size, size=k)]
    ref = pure_evaluate([f[pick] for f in flat], params, out_dtypes, rules)[0]
    if ref.terms is not None or ref.admitted is not None:
        return False
    want = np.ascontiguousarray(ref.expected).view(out_bits.dtype).reshape(-1)
    got = out_bits[pick]
    ref_exact = _object_values(ref.exact, pick.size)
    stats["cross_checked"] += int(pick.size)
    for j, i in enumerate(pick):
        close = _exact_agrees(float(approx[i]), ref_exact[j])
        if want[j] != got[j] or not close:
            operands = ", ".join(f"{f[i].item()!r} (0x{int(f[i:i + 1].view(_uint(f))[0]):X})" for f in flat)
            raise FastPathMismatch(
                f"oracle fast path for {op_kind} into {fmt} disagrees with the pure path at "
                f"element {int(i)} (inputs {operands}): fast bits 0x{int(got[j]):X}, exact "
                f"{float(approx[i])!r}; pure bits 0x{int(want[j]):X}, exact {ref_exact[j]!r}")
    return True


def _uint(a: np.ndarray) -> np.dtype:
    return np.dtype({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _exact_agrees(fast, pure) -> bool:
    """The fast path's exact value (a float within 2^-40 relative) against the pure path's (exact,
    or an approximation within 2^-28 relative): they must agree to 2^-27 relative."""
    from fractions import Fraction

    from numerics.ulp import as_fraction

    if pure is None or fast is None:
        return pure is None and fast is None
    if fast == pure:
        return True
    a, b = as_fraction(fast), as_fraction(pure)
    return abs(a - b) <= abs(b) * Fraction(1, 1 << 27)
