"""Test-only backends for the scatter family: a small correct one and broken variants.

``MiniScatter`` accumulates in F32 for BF16/F16 (the contract's accumulator) and in the base's
own format otherwise, one contribution at a time in index order, with ``np.add.at`` (which adds
every repeated index). Each broken subclass is a bug a kernel author writes: a fancy-indexed
``out[idx] += src`` (numpy keeps only the last of repeated indices), an IndexAdd that adds
BF16/F16 in the storage format, a ScatterAdd that reads Fuel's dim as one-based. Loadable as
``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge
from numerics.formats import get_format

KINDS = ("ScatterAdd", "IndexAdd")


def _acc(dtype: str):
    return np.float32 if dtype in ("BF16", "F16") else get_format(dtype).numpy_dtype


def _slabs(p: dict):
    outer, size, n, inner = (int(p[k]) for k in ("outer_count", "base_dim_size", "n_indices", "inner_count"))
    return (outer, size, inner), (outer, n, inner)


class MiniScatter(judge.Backend):
    """Correct for ScatterAdd and IndexAdd, every float dtype."""

    name = "mini-scatter"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"mini-scatter has no {contract.op_kind}"

    def acc(self, op: str, dtype: str):
        return _acc(dtype)

    def scatter_add(self, out, indices, src, dim: int):
        at = list(np.indices(src.shape, sparse=True))
        at[dim] = indices.astype(np.intp)
        np.add.at(out, tuple(at), src)

    def index_add(self, out, indices, src):
        np.add.at(out, (slice(None), indices.astype(np.intp)), src)

    def run(self, contract, call):
        base, indices, src = (t.view() for t in call.inputs)
        p, op = dict(call.params), contract.op_kind
        acc = self.acc(op, call.inputs[0].dtype)
        with np.errstate(all="ignore"):
            if op == "ScatterAdd":
                out = base.astype(acc)
                self.scatter_add(out, indices, src.astype(acc), int(p["dim"]))
            else:
                base_slab, src_slab = _slabs(p)
                out = base.astype(acc).reshape(base_slab)
                self.index_add(out, indices, src.astype(acc).reshape(src_slab))
            result = out.reshape(base.shape).astype(base.dtype)
        target = call.outputs[0]
        target.base[...] = result.reshape(-1)
        return [target.base.reshape(target.shape)]


class ScatterDropsDuplicates(MiniScatter):
    """``out[idx] += src`` with numpy fancy indexing: a buffered read-modify-write, so of
    repeated indices only the last contribution lands."""

    name = "broken-scatter-duplicates"

    def scatter_add(self, out, indices, src, dim):
        at = list(np.indices(src.shape, sparse=True))
        at[dim] = indices.astype(np.intp)
        out[tuple(at)] += src


class IndexAddStorageAccumulation(MiniScatter):
    """Adds BF16/F16 contributions in the storage format, rounding after every add, instead of
    the F32 accumulator the contract states."""

    name = "broken-index-add-half"

    def acc(self, op, dtype):
        return get_format(dtype).numpy_dtype if op == "IndexAdd" else _acc(dtype)


class ScatterDimOneBased(MiniScatter):
    """Reads Fuel's dim as one-based: scatters along axis dim - 1 (for dim 0 Python's negative
    index wraps to the last axis, which is right only on rank 1). Like a bounds-checked loop,
    it skips a contribution whose target falls outside base instead of raising."""

    name = "broken-scatter-dim"

    def scatter_add(self, out, indices, src, dim):
        axis = (dim - 1) % src.ndim
        at = [np.broadcast_to(g, src.shape) for g in np.indices(src.shape, sparse=True)]
        at[axis] = indices.astype(np.intp)
        inside = np.ones(src.shape, dtype=bool)
        for a, g in enumerate(at):
            inside &= g < out.shape[a]
        np.add.at(out, tuple(g[inside] for g in at), src[inside])


def backends() -> list[judge.Backend]:
    return [MiniScatter(), ScatterDropsDuplicates(), IndexAddStorageAccumulation(), ScatterDimOneBased()]
