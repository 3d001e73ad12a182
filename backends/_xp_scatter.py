"""Accumulating scatters for numpy-API libraries: the library's unbuffered add-at
(``XpLib.add_at``: numpy.add.at, cupyx.scatter_add), so that repeated indices each add once, on
a copy of base. Merged into ``_xp_ops.XP_TABLE``. The adds run in the base's own dtype, as the
library's kernel does: neither takes an accumulator dtype."""

from __future__ import annotations

from backends._scatter_params import index_slabs, scatter_dim


def _grids(xp, shape: tuple[int, ...]) -> list:
    """Each axis's coordinates, shaped to broadcast against ``shape`` (a sparse index grid)."""
    rank = len(shape)
    return [xp.arange(n).reshape((1,) * a + (n,) + (1,) * (rank - a - 1)) for a, n in enumerate(shape)]


def _scatter_add(env, args):
    base, indices, src = args
    xp = env.xp
    out = base.copy()
    at = _grids(xp, src.shape)
    at[scatter_dim(env.op.params)] = indices.astype(xp.intp)
    env.lib.add_at(out, tuple(at), src)
    return out


def _index_add(env, args):
    base, indices, src = args
    xp = env.xp
    base_slab, src_slab = index_slabs(env.op.params)
    out = base.reshape(base_slab).copy()
    outer, inner = _grids(xp, (base_slab[0], 1, base_slab[2]))[::2]
    env.lib.add_at(out, (outer, indices.astype(xp.intp).reshape(1, -1, 1), inner), src.reshape(src_slab))
    return out.reshape(base.shape)


XP_SCATTER: dict = {
    "ScatterAdd": _scatter_add,
    "IndexAdd": _index_add,
}
