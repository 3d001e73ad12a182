"""Accumulating scatters for numpy-API libraries: ``add.at`` (unbuffered, so repeated indices
each add once) on a copy of base. Merged into ``_xp_ops.XP_TABLE``. The adds run in the base's
own dtype, as the library's ufunc loop does: no accumulator dtype can be passed to ``add.at``."""

from __future__ import annotations

from backends._scatter_params import index_slabs, scatter_dim


def _scatter_add(env, args):
    base, indices, src = args
    xp = env.xp
    out = base.copy()
    at = list(xp.indices(src.shape, sparse=True))
    at[scatter_dim(env.op.params)] = indices.astype(xp.intp)
    xp.add.at(out, tuple(at), src)
    return out


def _index_add(env, args):
    base, indices, src = args
    xp = env.xp
    base_slab, src_slab = index_slabs(env.op.params)
    out = base.reshape(base_slab).copy()
    xp.add.at(out, (slice(None), indices.astype(xp.intp)), src.reshape(src_slab))
    return out.reshape(base.shape)


XP_SCATTER: dict = {
    "ScatterAdd": _scatter_add,
    "IndexAdd": _index_add,
}
