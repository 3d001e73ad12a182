"""Data movement for numpy-API libraries (numpy, cupy): concatenate, take, take_along_axis,
flip, roll, triu/tril over the trailing two axes, where for the masked fill. Merged into
``_xp_ops.XP_TABLE``. Each kernel returns the library's array; the adapter stores its bits."""

from __future__ import annotations

from backends._move_params import fill_bytes, select_slab, triangle


def _concat(env, args):
    return env.xp.concatenate(args, axis=int(env.op.params["axis"]))


def _index_select(env, args):
    source, indices = args
    slab, n = select_slab(env.op.params)
    picked = env.xp.take(source.reshape(slab), indices.astype(env.xp.intp), axis=1)
    return picked.reshape(env.op.out_shapes[0])


def _gather(env, args):
    source, indices = args
    return env.xp.take_along_axis(source, indices.astype(env.xp.intp), axis=int(env.op.params["dim"]))


def _flip(env, args):
    return env.xp.flip(args[0], axis=int(env.op.params["axis"]))


def _roll(env, args):
    return env.xp.roll(args[0], int(env.op.params["shift"]), axis=int(env.op.params["axis"]))


def _triu(env, args):
    return env.xp.triu(args[0], k=triangle(env.op.params))


def _tril(env, args):
    return env.xp.tril(args[0], k=triangle(env.op.params))


def _masked_fill(env, args):
    import numpy as np

    x, mask = args
    t = np.dtype(env.t)
    fill = np.frombuffer(fill_bytes(env.op.params, t.itemsize), dtype=t).reshape(())
    return env.xp.where(mask != 0, env.xp.asarray(fill), x)


XP_MOVE: dict = {
    "Concat": _concat,
    "IndexSelect": _index_select,
    "Gather": _gather,
    "Flip": _flip,
    "Roll": _roll,
    "Triu": _triu,
    "Tril": _tril,
    "MaskedFill": _masked_fill,
}
