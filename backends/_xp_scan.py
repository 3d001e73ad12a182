"""SelectiveScan and SsdChunkScan for numpy-API libraries (merged into ``_xp_ops.XP_TABLE``).

Neither library has a scan kernel; the natural implementations are mamba_ssm's own reference
code, transcribed: ``selective_scan_ref`` (the decays and drives formed at once with ``einsum``,
then a sequential loop over time) and ``ssd_minimal_discrete`` (the chunked state space duality
form: masked segment sums, ``einsum`` within chunks, a recurrence over chunk states). Operands
are time-major as the contracts state ([batch, seqlen, ...]), held in the accumulator dtype
(float32 for BF16/F16) and rounded to T by the caller. numpy's softplus is ``logaddexp(0, x)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _selective_scan(env, args: Sequence[Any]):
    xp, p = env.xp, env.op.params
    u, delta, a, b, c = (x.astype(env.acc) for x in args)
    if p.get("delta_softplus"):
        delta = xp.logaddexp(xp.zeros((), env.acc), delta)
    delta_a = xp.exp(xp.einsum("bld,dn->bldn", delta, a))
    delta_b_u = xp.einsum("bld,bln,bld->bldn", delta, b, u)
    batch, seqlen, dim = u.shape
    h = xp.zeros((batch, dim, a.shape[-1]), dtype=env.acc)
    ys = xp.zeros((batch, seqlen, dim), dtype=env.acc)
    for i in range(seqlen):
        h = delta_a[:, i] * h + delta_b_u[:, i]
        ys[:, i] = xp.einsum("bdn,bn->bd", h, c[:, i])
    return ys


def _segsum(xp, x):
    """[..., T] -> [..., T, T]: entry (i, j) sums x over (j, i], -inf above the diagonal (the
    stable form: masked copies summed along the column, no difference of prefix sums)."""
    t = x.shape[-1]
    rows = xp.repeat(x[..., None], t, axis=-1)
    rows = xp.where(xp.tril(xp.ones((t, t), dtype=bool), -1), rows, 0)
    sums = xp.cumsum(rows, axis=-2)
    return xp.where(xp.tril(xp.ones((t, t), dtype=bool), 0), sums, -xp.inf)


def _ssd_chunk_scan(env, args: Sequence[Any]):
    xp, q = env.xp, int(env.op.params["chunk_size"])
    x, dt, a, b, c = (v.astype(env.acc) for v in args)
    batch, seqlen, heads, p = x.shape
    n, chunks = b.shape[-1], seqlen // q
    xs = (x * dt[..., None]).reshape(batch, chunks, q, heads, p)
    at = (a * dt).reshape(batch, chunks, q, heads).transpose(0, 3, 1, 2)  # b h c l
    bs, cs = b.reshape(batch, chunks, q, heads, n), c.reshape(batch, chunks, q, heads, n)
    a_cumsum = xp.cumsum(at, axis=-1)
    y_diag = xp.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", cs, bs, xp.exp(_segsum(xp, at)), xs)
    decay_states = xp.exp(a_cumsum[..., -1:] - a_cumsum)
    states = xp.einsum("bclhn,bhcl,bclhp->bchpn", bs, decay_states, xs)
    states = xp.concatenate([xp.zeros_like(states[:, :1]), states], axis=1)
    totals = xp.pad(a_cumsum[..., -1], ((0, 0), (0, 0), (1, 0)))
    states = xp.einsum("bhzc,bchpn->bzhpn", xp.exp(_segsum(xp, totals)), states)[:, :-1]
    y_off = xp.einsum("bclhn,bchpn,bhcl->bclhp", cs, states, xp.exp(a_cumsum))
    return (y_diag + y_off).reshape(batch, seqlen, heads, p)


XP_SCAN = {"SelectiveScan": _selective_scan, "SsdChunkScan": _ssd_chunk_scan}
