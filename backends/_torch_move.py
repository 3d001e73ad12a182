"""Data movement for torch (CPU and CUDA): cat, index_select, gather, flip, roll, triu/tril,
masked_fill. Merged into ``_torch_ops.TORCH_TABLE``. U32 indices are widened to the int64
indices torch's kernels take, as a Fuel wrapper does; the fill element is decoded from its
bytes into a 0-d tensor of the data dtype, never through a Python float."""

from __future__ import annotations

from backends._move_params import fill_bytes, select_slab, triangle

# torch has no UInt32 kernel for these (NotImplementedError "... not implemented for 'UInt32'").
NO_UINT32 = ("Gather", "MaskedFill", "Flip", "Triu", "Tril")


def unsupported(op_kind: str | None, dtypes) -> str | None:
    """Why torch cannot run this data-movement item (the data operand comes first), or None."""
    if op_kind in NO_UINT32 and dtypes and dtypes[0] == "U32":
        return f"torch implements no UInt32 kernel for {op_kind}"
    return None


def _long(env, indices):
    return indices.to(env.torch.int64)


def _concat(env, args):
    return env.torch.cat(list(args), dim=int(env.op.params["axis"]))


def _index_select(env, args):
    source, indices = args
    slab, n = select_slab(env.op.params)
    picked = env.torch.index_select(source.reshape(slab), 1, _long(env, indices))
    return picked.reshape(env.op.out_shapes[0])


def _gather(env, args):
    source, indices = args
    return env.torch.gather(source, int(env.op.params["dim"]), _long(env, indices))


def _flip(env, args):
    return env.torch.flip(args[0], dims=[int(env.op.params["axis"])])


def _roll(env, args):
    return env.torch.roll(args[0], shifts=int(env.op.params["shift"]), dims=int(env.op.params["axis"]))


def _triu(env, args):
    return env.torch.triu(args[0], diagonal=triangle(env.op.params))


def _tril(env, args):
    return env.torch.tril(args[0], diagonal=triangle(env.op.params))


def _masked_fill(env, args):
    x, mask = args
    raw = bytearray(fill_bytes(env.op.params, x.element_size()))
    fill = env.torch.frombuffer(raw, dtype=x.dtype).reshape(()).to(x.device)
    return x.masked_fill(mask != 0, fill)


TORCH_MOVE: dict = {
    "Concat": _concat,
    "IndexSelect": _index_select,
    "Gather": _gather,
    "Flip": _flip,
    "Roll": _roll,
    "Triu": _triu,
    "Tril": _tril,
    "MaskedFill": _masked_fill,
}
