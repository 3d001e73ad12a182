"""SelectiveScan and SsdChunkScan for torch (merged into ``_torch_ops.TORCH_TABLE``).

mamba_ssm's reference implementations, in torch as they are written there: ``selective_scan_ref``
(``torch.nn.functional.softplus`` on delta when asked, decays and drives formed with
``torch.einsum``, a loop over time) and ``ssd_minimal_discrete`` (masked segment sums and
``torch.einsum`` within chunks, a recurrence over chunk states). Operands are time-major as the
contracts state, computed in float32 for BF16/F16 (the accumulator they name) and in T otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _widened(env, args):
    return [x.to(env.acc) if env.acc is not None else x for x in args]


def _selective_scan(env, args: Sequence[Any]):
    torch, p = env.torch, env.op.params
    u, delta, a, b, c = _widened(env, args)
    if p.get("delta_softplus"):
        delta = torch.nn.functional.softplus(delta)
    delta_a = torch.exp(torch.einsum("bld,dn->bldn", delta, a))
    delta_b_u = torch.einsum("bld,bln,bld->bldn", delta, b, u)
    batch, seqlen, dim = u.shape
    h = u.new_zeros((batch, dim, a.shape[-1]))
    ys = []
    for i in range(seqlen):
        h = delta_a[:, i] * h + delta_b_u[:, i]
        ys.append(torch.einsum("bdn,bn->bd", h, c[:, i]))
    return torch.stack(ys, dim=1) if ys else u.new_zeros((batch, 0, dim))


def _segsum(torch, x):
    """[..., T] -> [..., T, T]: entry (i, j) sums x over (j, i], -inf above the diagonal."""
    t = x.size(-1)
    rows = x[..., None].expand(*x.shape, t)
    rows = rows.masked_fill(~torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), -1), 0)
    sums = torch.cumsum(rows, dim=-2)
    return sums.masked_fill(~torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), 0), -torch.inf)


def _ssd_chunk_scan(env, args: Sequence[Any]):
    torch, q = env.torch, int(env.op.params["chunk_size"])
    x, dt, a, b, c = _widened(env, args)
    batch, seqlen, heads, p = x.shape
    n, chunks = b.shape[-1], seqlen // q
    xs = (x * dt[..., None]).reshape(batch, chunks, q, heads, p)
    at = (a * dt).reshape(batch, chunks, q, heads).permute(0, 3, 1, 2)  # b h c l
    bs, cs = b.reshape(batch, chunks, q, heads, n), c.reshape(batch, chunks, q, heads, n)
    a_cumsum = torch.cumsum(at, dim=-1)
    y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", cs, bs, torch.exp(_segsum(torch, at)), xs)
    decay_states = torch.exp(a_cumsum[..., -1:] - a_cumsum)
    states = torch.einsum("bclhn,bhcl,bclhp->bchpn", bs, decay_states, xs)
    states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)
    totals = torch.nn.functional.pad(a_cumsum[..., -1], (1, 0))
    states = torch.einsum("bhzc,bchpn->bzhpn", torch.exp(_segsum(torch, totals)), states)[:, :-1]
    y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", cs, states, torch.exp(a_cumsum))
    return (y_diag + y_off).reshape(batch, seqlen, heads, p)


TORCH_SCAN = {"SelectiveScan": _selective_scan, "SsdChunkScan": _ssd_chunk_scan}
