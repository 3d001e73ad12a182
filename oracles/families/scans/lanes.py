"""SelectiveScan and SsdChunkScan cut into lanes (``recurrence.Lane``), their special values, and
their outputs boxed with the derived bound's terms.

The operands (time-major, as Fuel's output ``y [batch, seqlen, ...]`` is):

- SelectiveScan: u, delta [batch, seqlen, dim]; a [dim, dstate]; b, c [batch, seqlen, dstate].
  A lane is (batch, d): step_t = delta[t, d], decay[n] = a[d, n], drive_t[n] = b[t, n]·u[t, d],
  C_t[n] = c[t, n]; y[batch, t, d].
- SsdChunkScan: x [batch, seqlen, heads, head_dim]; dt [batch, seqlen, heads]; a [heads];
  b, c [batch, seqlen, heads, state_dim]. A lane is (batch, head, p): step_t = dt[t, head],
  decay[n] = a[head], drive_t[n] = b[t, head, n]·x[t, head, p], C_t[n] = c[t, head, n];
  y[batch, t, head, p] (the recurrence mamba_ssm's ``ssd_minimal_discrete`` computes by chunks,
  given X·dt and A·dt).

Special values, decided here (the inventory states none; a ≤ 0, steps ≥ 0 without softplus and
finite steps and decays are the domain the family draws):

- a NaN reaches every output whose state or readout it enters: a NaN step or drive factor at
  step s makes the lane's state NaN from s on (all channels for a step, one for b, all for u/x);
  a NaN decay makes its channel NaN from the start; a NaN in c makes y_t NaN alone;
- an infinity in a drive factor or in c reaches the same outputs, which are then NaN or ±inf,
  either admitted: ∞·0, ∞ − ∞ and a decay that underflows to 0 (0·∞) decide which, and where a
  kernel's exponentials underflow is its own affair;
- where some evaluation order could overflow the accumulator (``PathSums.size`` at its
  threshold), ±inf and NaN are admitted beside the finite result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from mpmath.libmp import from_float, fzero, mpf_abs, mpf_add, mpf_mul

from numerics.rounding import float_spec
from oracles import arith, edges
from oracles.families.scans import bounds
from oracles.families.scans.paths import path_sums
from oracles.families.scans.recurrence import BOUND_PREC, UP, Lane
from oracles.families.scans.rounding import START_GUARD, fraction, lane_values
from oracles.output import float_output, output_spec
from oracles.shapes import object_array
from oracles.sums import acc_format

INF = math.inf
OVERFLOWED = (INF, -INF, math.nan)


@dataclass(frozen=True)
class RawLane:
    """A lane's input values as Python floats: steps [t], decay [n], b [t][n], x [t], c [t][n]."""

    steps: list
    decay: list
    b: list
    x: list
    c: list


def _first(flags: list[bool]) -> int:
    return next((t for t, f in enumerate(flags) if f), len(flags))


def _taint(raw: RawLane) -> tuple[list[int], list[int]]:
    """Per channel, the first step whose state a NaN (resp. an infinity) enters."""
    length = len(raw.steps)
    nans, infs = [], []
    for n, a in enumerate(raw.decay):
        nans.append(0 if a != a else _first([
            raw.steps[t] != raw.steps[t] or raw.b[t][n] != raw.b[t][n] or raw.x[t] != raw.x[t]
            for t in range(length)]))
        infs.append(0 if math.isinf(a) else _first([
            math.isinf(raw.steps[t]) or math.isinf(raw.b[t][n]) or math.isinf(raw.x[t])
            for t in range(length)]))
    return nans, infs


def _exact(v: float) -> tuple:
    return from_float(v)  # exact: 53 bits hold every float


def build_lane(raw: RawLane, length: int, softplus: bool, chunk: int | None) -> Lane:
    """The numeric lane over the first ``length`` steps, channels of equal decay and drive
    column merged (their readouts summed exactly; a non-finite readout counts as 0, its output
    is decided by its special value)."""
    groups: dict[tuple, list[int]] = {}
    for n, a in enumerate(raw.decay):
        groups.setdefault((a, tuple(raw.b[t][n] for t in range(length))), []).append(n)
    members = list(groups.values())

    def readout(t: int, ns: list[int]):
        cs = [_exact(raw.c[t][n]) if math.isfinite(raw.c[t][n]) else fzero for n in ns]
        net = gross = fzero
        for c in cs:
            net = mpf_add(net, c)  # exact
            gross = mpf_add(gross, mpf_abs(c), BOUND_PREC, UP)
        return net, gross

    drive, net, gross, spread = [], [], [], []
    for t in range(length):
        x = raw.x[t]
        drive.append(tuple(mpf_mul(_exact(raw.b[t][ns[0]]), _exact(x)) for ns in members))
        pairs = [readout(t, ns) for ns in members]
        net.append(tuple(p[0] for p in pairs))
        gross.append(tuple(p[1] for p in pairs))
        spread.append(tuple(mpf_mul(_exact(max(1.0, abs(raw.b[t][ns[0]]))), _exact(max(1.0, abs(x))),
                                    BOUND_PREC, UP) for ns in members))  # a binary64 product may overflow
    return Lane(steps=tuple(_exact(v) for v in raw.steps[:length]),
                decay=tuple(_exact(raw.decay[ns[0]]) for ns in members),
                drive=tuple(drive), net=tuple(net), gross=tuple(gross), spread=tuple(spread),
                channels=len(raw.decay), softplus=softplus, chunk=chunk)


def solve_lane(raw: RawLane, softplus: bool, chunk: int | None, s, acc) -> list[tuple]:
    """(result, terms) of every output of one lane: result (bits, exact[, admitted])."""
    nans, infs = _taint(raw)
    length = min([len(raw.steps), *nans, *infs])
    lane = build_lane(raw, length, softplus, chunk)
    sums = path_sums(lane, s.p + START_GUARD)
    values = lane_values(lane, s, sums)
    limit = edges.overflow_threshold(acc)
    out = []
    for t in range(len(raw.steps)):
        nan = any(n <= t for n in nans) or any(c != c for c in raw.c[t])
        inf = any(n <= t for n in infs) or any(math.isinf(c) for c in raw.c[t])
        if nan or inf:
            result = arith.nan(s) if nan else edges.with_alternatives(arith.nan(s), (INF, -INF))
            out.append((result, (1, 0)))
            continue
        size = sums.size[-1 if chunk else t]
        result = values[t]
        size = sums.upper(size)
        if size[1] and fraction(size) >= limit:
            result = edges.with_alternatives(result, OVERFLOWED)
        out.append((result, bounds.terms(lane, sums, t, acc)))
    return out


def _boxed(results: list, fmt: str, shape: tuple, acc: str):
    cells = [r for r, _ in results]
    terms = object_array([t for _, t in results], shape)
    return [float_output(cells, fmt, shape, terms=terms, acc_format=acc)]


def _floats(x) -> list:
    with np.errstate(invalid="ignore"):
        return np.asarray(x).astype(np.float64).tolist()


def _check(name: str, arr: np.ndarray, want: tuple) -> None:
    if tuple(arr.shape) != want:
        raise ValueError(f"{name} has shape {list(arr.shape)}; the op params give {list(want)}")


def _geometry(params, names: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(int(params[n]) for n in names)


def selective_scan(inputs, params, out_dtypes, rules):
    """SelectiveScan: y [batch, seqlen, dim] (module docstring)."""
    fmt, s = output_spec(out_dtypes)
    u, delta, a, b, c = (np.asarray(x) for x in inputs[:5])
    batch, seqlen, dim, dstate = _geometry(params, ("batch", "seqlen", "dim", "dstate"))
    for name, arr, want in (("u", u, (batch, seqlen, dim)), ("delta", delta, (batch, seqlen, dim)),
                            ("a", a, (dim, dstate)), ("b", b, (batch, seqlen, dstate)),
                            ("c", c, (batch, seqlen, dstate))):
        _check(name, arr, want)
    acc = acc_format(u.dtype)
    U, D, A, B, C = (_floats(x) for x in (u, delta, a, b, c))
    softplus = bool(params.get("delta_softplus", False))
    results: list = [None] * (batch * seqlen * dim)
    for i in range(batch):
        for d in range(dim):
            raw = RawLane([D[i][t][d] for t in range(seqlen)], A[d], B[i],
                          [U[i][t][d] for t in range(seqlen)], C[i])
            for t, cell in enumerate(solve_lane(raw, softplus, None, s, float_spec(acc))):
                results[(i * seqlen + t) * dim + d] = cell
    return _boxed(results, fmt, (batch, seqlen, dim), acc)


def ssd_chunk_scan(inputs, params, out_dtypes, rules):
    """SsdChunkScan: y [batch, seqlen, heads, head_dim] (module docstring)."""
    fmt, s = output_spec(out_dtypes)
    x, dt, a, b, c = (np.asarray(v) for v in inputs[:5])
    batch, seqlen, heads, p, n, q = _geometry(
        params, ("batch", "seqlen", "heads", "head_dim", "state_dim", "chunk_size"))
    if q <= 0 or seqlen % q:
        raise ValueError(f"chunk_size {q} must be positive and divide seqlen {seqlen}")
    for name, arr, want in (("x", x, (batch, seqlen, heads, p)), ("dt", dt, (batch, seqlen, heads)),
                            ("a", a, (heads,)), ("b", b, (batch, seqlen, heads, n)),
                            ("c", c, (batch, seqlen, heads, n))):
        _check(name, arr, want)
    acc = acc_format(x.dtype)
    X, DT, A, B, C = (_floats(v) for v in (x, dt, a, b, c))
    results: list = [None] * (batch * seqlen * heads * p)
    for i in range(batch):
        for h in range(heads):
            steps = [DT[i][t][h] for t in range(seqlen)]
            bs = [B[i][t][h] for t in range(seqlen)]
            cs = [C[i][t][h] for t in range(seqlen)]
            for j in range(p):
                raw = RawLane(steps, [A[h]] * n, bs, [X[i][t][h][j] for t in range(seqlen)], cs)
                for t, cell in enumerate(solve_lane(raw, False, q, s, float_spec(acc))):
                    results[((i * seqlen + t) * heads + h) * p + j] = cell
    return _boxed(results, fmt, (batch, seqlen, heads, p), acc)
