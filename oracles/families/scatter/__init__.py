"""The scatter family: ScatterAdd (N-dim, along dim, indices and src of one shape) and IndexAdd
(rank-1 indices along one axis of Fuel's [outer, axis, inner] view). Both return base with every
src element added into the base element its index names (``oracles.families.scatter.evaluate``):
exact, rounded once per output element, with SPEC §4's derived sum bound where duplicate indices
make the kernel's result an order-dependent sum.

Cases draw indices with duplicates on purpose (all equal, a pool of one or two, free, distinct)
and, in one case of four, long duplicate runs onto a few slots
(``oracles.families.scatter.draw``).
"""

from __future__ import annotations

import numpy as np

from oracles import hints
from oracles.families.scatter import evaluate as e
from oracles.families.scatter.draw import draw_input, draw_shapes, long_case
from oracles.families.scatter.refuse import break_rule
from oracles.family import Family
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}  # SPEC §4: the bound holds for any summation order


def rows() -> list[OpDef]:
    return [
        OpDef("ScatterAdd", 3, False, SUMS, e.scatter_add, hints=hints.summation, reduction_bound="sum",
              domain="out = base; out[.., indices[.., j, ..], ..] += src[.., j, ..] along dim"),
        OpDef("IndexAdd", 3, False, SUMS, e.index_add, hints=hints.summation, reduction_bound="sum",
              domain="out = base; out[o, indices[j], i] += src[o, j, i]"),
    ]


def reach(opdef, flagged, params, out_shape) -> np.ndarray:
    """A flagged base element reaches its own output; a flagged src element (its index is not
    known here) every output along the scattered axis of its line."""
    shapes = [tuple(np.shape(f)) for f in flagged[:3]]
    hit = np.array(flagged[0], dtype=bool).reshape(-1)
    src = np.array(flagged[2], dtype=bool).reshape(-1)
    if np.any(src):
        lines = _line_map(opdef, shapes, params)
        for j in (j for j, flag in enumerate(src.tolist()) if flag):
            hit[lines(j)] = True
    return hit.reshape(out_shape)


def _line_map(opdef, shapes, params):
    """src flat index -> every base flat index it may land on (any index along the axis)."""
    if opdef.op_kind == "ScatterAdd":
        base, src, dim = e.scatter_geometry(shapes, params)
        b_inner, s_inner = int(np.prod(base[dim + 1:])), int(np.prod(src[dim + 1:]))

        def lines(j: int) -> list[int]:
            o, rest = divmod(j, src[dim] * s_inner)
            i = rest % s_inner
            return [(o * base[dim] + k) * b_inner + i for k in range(base[dim])]

        return lines
    outer, size, n, inner = e.index_geometry(shapes, params)

    def lines_index(j: int) -> list[int]:
        o, rest = divmod(j, n * inner)
        i = rest % inner
        return [(o * size + k) * inner + i for k in range(size)]

    return lines_index


def size_plan(contract, opdef, n):
    """``judge measure``'s call at size n: n contributions into a base of n elements, along a
    rank-1 axis (the measured indices are small, so the contributions pile onto a few slots,
    the contended case of an atomic kernel)."""
    if opdef.op_kind == "ScatterAdd":
        return [(n,), (n,), (n,)], {"base_shape": [n], "src_shape": [n], "dim": 0}
    return [(n,), (n,), (n,)], {"outer_count": 1, "base_dim_size": n, "n_indices": n, "inner_count": 1}


FAMILY = Family(
    name="scatter",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    reach=reach,
    size_plan=size_plan,
    break_rule=break_rule,
)
