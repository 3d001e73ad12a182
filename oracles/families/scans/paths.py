"""The path sums of a lane (``recurrence.PathSums``), computed once per lane: in binary64 where
the lane is tame, upwards in mpmath otherwise (``recurrence`` says why either is an upper bound).

Per channel group, with a = |α_t| = e^(−|z_t|) and b = |β_t| = δ'_t·|drive_t|:

    H ← a·H + b            G ← a·(G + H₋)          K ← a·(K + |z_t|·H₋)
    Kc ← a·(Kc + |z_t|·H₋) + b·Zin_t               D ← a·D + H₋ + 4        F ← F + max(1, δ')·spread

(H₋ the previous H; Zin_t = Σ |z_r| from the start of t's chunk to t). A decay that underflows
binary64 drops paths of at most 2^−500 after their readout (every tame magnitude is within
2^±TAME): from then on the approximation's error sum is widened by that much.
"""

from __future__ import annotations

from mpmath.libmp import from_int, mpf_abs, mpf_neg

from oracles.families.scans.recurrence import FLOATS, Lane, PathSums, _mpf_arith, tame

DROPPED = 2.0**-500


def _exp_neg(ar, z):
    return ar.exp(-z) if ar is FLOATS else ar.exp(mpf_neg(z))


def path_sums(lane: Lane, w: int) -> PathSums:
    """The lane's path sums, every output's (``w``: the working precision of δ' and α)."""
    ar = FLOATS if tame(lane) else _mpf_arith(w)
    groups = range(len(lane.decay))
    decay = [ar.of(mpf_abs(a)) for a in lane.decay]
    state = {k: [ar.zero for _ in groups] for k in ("H", "G", "K", "Kc", "D", "F")}
    live = [False for _ in groups]
    sums = PathSums(exact=ar is not FLOATS)
    four = ar.of(from_int(4))
    zin = zsum = fsize = ar.zero
    dropped = False
    for t in range(len(lane.steps)):
        dp = ar.softplus(lane.steps[t]) if lane.softplus else ar.of(mpf_abs(lane.steps[t]))
        if lane.chunk and t % lane.chunk == 0:
            zin = ar.zero
        zs = [ar.mul(dp, d) for d in decay]
        zt = ar.zero
        for z in zs:
            zt = ar.big(zt, z)
        zin, zsum = ar.add(zin, zt), ar.add(zsum, zt)
        grown = ar.big(ar.one, dp)
        for g in groups:
            a = _exp_neg(ar, zs[g])
            dropped = dropped or (ar is FLOATS and a == 0.0)
            b = ar.mul(dp, ar.of(mpf_abs(lane.drive[t][g])))
            f = ar.mul(grown, ar.of(lane.spread[t][g]))
            fsize = ar.big(fsize, f)
            _step(ar, state, g, a, b, zs[g], zin, four, f)
            live[g] = live[g] or bool(lane.drive[t][g][1] and (lane.softplus or lane.steps[t][1]))
        _record(ar, sums, lane, t, state, live, (fsize, zsum), dropped)
    return sums


def _step(ar, state, g: int, a, b, z, zin, four, f) -> None:
    """One step of group g's recurrences (module docstring)."""
    H, G, K, Kc, D, F = (state[k] for k in ("H", "G", "K", "Kc", "D", "F"))
    add, mul = ar.add, ar.mul
    hp = H[g]
    H[g] = add(mul(a, hp), b)
    G[g] = mul(a, add(G[g], hp))
    K[g] = mul(a, add(K[g], mul(z, hp)))
    Kc[g] = add(mul(a, add(Kc[g], mul(z, hp))), mul(b, zin))
    D[g] = add(mul(a, D[g]), add(hp, four))
    F[g] = add(F[g], f)


def _record(ar, sums: PathSums, lane: Lane, t: int, state, live, sizes, dropped: bool) -> None:
    """Output t's sums: each group's weighted by Σ|C| of the group (|Σ C| for the error)."""
    add, mul, of = ar.add, ar.mul, ar.of
    groups = range(len(lane.decay))
    gross = [of(lane.gross[t][g]) for g in groups]
    widened = [ar.big(ar.one, c) for c in gross]
    for name, weights in (("H", gross), ("G", gross), ("K", gross), ("Kc", gross), ("D", widened),
                          ("F", widened)):
        total = ar.zero
        for g in groups:
            total = add(total, mul(weights[g], state[name][g]))
        getattr(sums, name).append(total)
    six, wide, twenty = (of(from_int(k)) for k in (6, lane.channels + 24, 20))
    error = DROPPED if dropped else ar.zero
    for g in groups:
        inner = add(add(mul(six, state["G"][g]), mul(wide, state["H"][g])), mul(twenty, state["K"][g]))
        error = add(error, mul(of(mpf_abs(lane.net[t][g])), inner))
    sums.error.append(error)
    fsize, zsum = sizes
    widest = ar.one
    for c in widened:
        widest = ar.big(widest, c)
    size = mul(mul(mul(fsize, ar.big(ar.one, zsum)), of(from_int((t + 2) * (lane.channels + 1)))), widest)
    sums.size.append(size)
    sums.zero.append(all(not live[g] or not lane.gross[t][g][1] for g in groups))
