"""Accumulating scatters for torch (CPU and CUDA): ``Tensor.scatter_add`` and
``Tensor.index_add`` (out-of-place: base is left unchanged). Merged into
``_torch_ops.TORCH_TABLE``. U32 indices are widened to the int64 indices torch takes, as a Fuel
wrapper does; IndexAdd runs on the (outer, axis, inner) views its op params describe. Neither
kernel takes an accumulator dtype: each accumulates as torch implements it for the dtype."""

from __future__ import annotations

from backends._scatter_params import index_slabs, scatter_dim


def _scatter_add(env, args):
    base, indices, src = args
    return base.scatter_add(scatter_dim(env.op.params), indices.to(env.torch.int64), src)


def _index_add(env, args):
    base, indices, src = args
    base_slab, src_slab = index_slabs(env.op.params)
    out = base.reshape(base_slab).index_add(1, indices.to(env.torch.int64), src.reshape(src_slab))
    return out.reshape(base.shape)


TORCH_SCATTER: dict = {
    "ScatterAdd": _scatter_add,
    "IndexAdd": _index_add,
}
