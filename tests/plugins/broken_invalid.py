"""Test-only backends for error inputs: a wrapper that refuses what Fuel's wrappers refuse, and
kernels that let an error input through.

``Checked`` runs IndexSelect and Gather (bit copies, computed here) and Nf4Matmul (the numpy
adapter's) behind the checks a dispatch wrapper makes: the operand count, each operand's dtype,
every index within its axis, k even and a multiple of block_size. Each broken subclass drops
one check the way a kernel author does:

- ``ClampedIndices``: an index past the axis is clamped to the last slice ("never read out of
  bounds"), so the kernel returns a plausible result for an input it must refuse;
- ``RawOperandTable``: the operands' data pointers go into a fixed table of four, unused slots
  null, and the kernel reads each operand it needs through the table: given fewer operands
  than it indexes, it dereferences a null pointer (a segfault: run it in a worker only);
- ``FlooredBlocks``: the NF4 kernel counts ``k // block_size`` blocks and never checks the
  remainder, so a k off the block multiple computes on a truncated row.

Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import ctypes

import numpy as np

import judge

KINDS = ("IndexSelect", "Gather", "Nf4Matmul")
ARITY = {"IndexSelect": 2, "Gather": 2, "Nf4Matmul": 3}


class Refused(ValueError):
    """What the wrapper raises for an input it does not accept."""


def _numpy_adapter():
    from judge.registry import default_registry

    return default_registry().load_all().backends["numpy"]


class Checked(judge.Backend):
    """Correct IndexSelect, Gather and Nf4Matmul behind a wrapper's checks."""

    name = "checked-wrapper"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    # -- the wrapper ------------------------------------------------------------------------
    def check_count(self, contract, call) -> None:
        if len(call.inputs) != ARITY[contract.op_kind]:
            raise Refused(f"{contract.op_kind} takes {ARITY[contract.op_kind]} operands, "
                          f"got {len(call.inputs)}")

    def check_dtypes(self, contract, call) -> None:
        for spec, t in zip(contract.inputs, call.inputs, strict=False):
            if t.dtype not in spec.dtypes:
                raise Refused(f"{spec.name} is {t.dtype}, not one of {list(spec.dtypes)}")

    def index(self, indices: np.ndarray, size: int) -> np.ndarray:
        idx = indices.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            raise Refused(f"index {int(idx.max())} out of range for an axis of {size}")
        return idx

    def check_blocks(self, p: dict) -> None:
        k, block = int(p["k"]), int(p["block_size"])
        if k % 2 or k % block:
            raise Refused(f"k = {k} is not even and a multiple of block_size {block}")

    def whole_blocks(self, call):
        """The call as the kernel reads it (every block whole, once checked)."""
        return call

    # -- the kernels ------------------------------------------------------------------------
    def operands(self, contract, call) -> list[np.ndarray]:
        return [t.view() for t in call.inputs]

    def run(self, contract, call):
        self.check_count(contract, call)
        self.check_dtypes(contract, call)
        args, p, op = self.operands(contract, call), dict(call.params), contract.op_kind
        if op == "Nf4Matmul":
            self.check_blocks(p)
            return _numpy_adapter().run(contract, self.whole_blocks(call))
        source, indices = args
        if op == "IndexSelect":
            outer, size, inner = (int(p[k]) for k in ("outer_count", "source_dim_size", "inner_count"))
            slab = np.ascontiguousarray(source).reshape(outer, size, inner)
            result = slab[:, self.index(indices.reshape(-1), size), :]
        else:
            dim = int(p["dim"])
            idx = self.index(indices, source.shape[dim])
            result = np.take_along_axis(source, idx, axis=dim)
        out = call.outputs[0]
        out.base[...] = np.ascontiguousarray(result).reshape(-1)
        return [out.base.reshape(out.shape)]


class ClampedIndices(Checked):
    """Out-of-range indices are clamped to the last slice instead of refused."""

    name = "broken-clamped-indices"

    def index(self, indices, size):
        return np.clip(indices.astype(np.int64), 0, max(size - 1, 0))


class RawOperandTable(Checked):
    """Operands read through a fixed table of data pointers, no count check."""

    name = "broken-raw-operand-table"

    def check_count(self, contract, call) -> None:
        pass

    def operands(self, contract, call):
        table = [t.base.ctypes.data for t in call.inputs][:4]
        table += [0] * (4 - len(table))
        out = []
        for i in range(ARITY[contract.op_kind]):
            _ = ctypes.c_uint8.from_address(table[i]).value  # prefetch its first byte, through its pointer
            out.append(call.inputs[i].view())
        return out


class FlooredBlocks(Checked):
    """NF4 blocks counted as k // block_size, the remainder never checked."""

    name = "broken-floored-blocks"

    def check_blocks(self, p):
        if int(p["k"]) % 2:
            raise Refused(f"k = {p['k']} is odd")

    def whole_blocks(self, call):
        from dataclasses import replace

        from judge.api import TensorArg, contiguous_strides

        p = dict(call.params)
        block = int(p["block_size"])
        k = int(p["k"]) // block * block
        cut = []
        for t, width in zip(call.inputs, (k, k // 2, k // block), strict=True):
            a = np.ascontiguousarray(t.view()[..., :width])
            cut.append(TensorArg(a.reshape(-1), a.shape, contiguous_strides(a.shape), 0, t.dtype))
        return replace(call, inputs=cut, params=dict(p, k=k))


def backends() -> list[judge.Backend]:
    return [Checked(), ClampedIndices(), RawOperandTable(), FlooredBlocks()]
