"""Rope: out = x·cos + rotate(x)·sin over the last axis, each element two exact products and a
sum rounded once into the output format (``oracles.families.conv.dot``).

x is [..outer.., seq, head_dim]; cos and sin are [seq, head_dim] tables, the same for every
outer index. rotate() pairs each position i with a partner j and a sign:

- ``half`` (rotate_half): j = i + d/2 with sign −1 for i < d/2, j = i − d/2 with sign +1 above:
  out[i] = x[i]·cos[i] − x[i + d/2]·sin[i], out[i + d/2] = x[i + d/2]·cos[i + d/2] + x[i]·sin[i + d/2];
- ``interleaved``: the pairs (2m, 2m + 1): out[2m] = x[2m]·cos[2m] − x[2m + 1]·sin[2m],
  out[2m + 1] = x[2m + 1]·cos[2m + 1] + x[2m]·sin[2m + 1].

Each element is a dot product of length two, held to its derived bound with the accumulator the
contracts state (F32 for BF16/F16): 3·u_acc·(|x·cos| + |y·sin|) + ulp.

    >>> import numpy as np, oracles
    >>> x = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    >>> c = np.full((1, 4), 0.5, np.float32); s = np.full((1, 4), 0.25, np.float32)
    >>> p = {"outer_count": 1, "seq": 1, "head_dim": 4, "interleaved": 0}
    >>> oracles.evaluate("Rope", [x, c, s], p, ["F32"], {})[0].expected.tolist()
    [[-0.25, 0.0, 1.75, 2.5]]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from numerics.formats import dtype_name
from oracles.families.conv.dot import Grid
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format


def interleaved(params: Mapping[str, Any]) -> bool:
    """The pairing a case states (the ``interleaved`` op param; rotate_half where absent)."""
    return bool(int(float(params.get("interleaved", 0) or 0)))


def partner(i: int, d: int, pairs: bool) -> tuple[int, int]:
    """(j, sign): out[i] = x[i]·cos[i] + sign·x[j]·sin[i]."""
    if pairs:
        return (i + 1, -1) if i % 2 == 0 else (i - 1, 1)
    h = d // 2
    return (i + h, -1) if i < h else (i - h, 1)


def rope_geometry(x_shape, table_shape, params: Mapping[str, Any]) -> tuple[int, int, int]:
    """(outer_count, seq, head_dim), checked against the operands."""
    if len(x_shape) < 2:
        raise ValueError(f"Rope needs x of rank >= 2 ([..outer.., seq, head_dim]), got {list(x_shape)}")
    outer, seq, d = math.prod(x_shape[:-2]), x_shape[-2], x_shape[-1]
    want = tuple(int(params.get(k, v)) for k, v in (("outer_count", outer), ("seq", seq), ("head_dim", d)))
    if want != (outer, seq, d) or tuple(table_shape) != (seq, d):
        raise ValueError(f"Rope params {dict(params)} do not match x {list(x_shape)} and tables "
                         f"{list(table_shape)} (expected outer_count={outer}, seq={seq}, head_dim={d})")
    if d % 2:
        raise ValueError(f"Rope head_dim {d} is odd: its positions cannot be paired")
    return outer, seq, d


def evaluate_rope(inputs, params, out_dtypes, rules):
    fmt, _ = output_spec(out_dtypes)
    x, cos, sin = (np.asarray(a) for a in inputs[:3])
    outer, seq, d = rope_geometry(x.shape, cos.shape, params or {})
    if sin.shape != cos.shape:
        raise ValueError(f"Rope sin {list(sin.shape)} and cos {list(cos.shape)} differ")
    name = dtype_name(x.dtype)
    acc = acc_format(x.dtype)
    grid = Grid(name, fmt, acc)
    xs, cs, ss = as_floats(x), as_floats(cos), as_floats(sin)
    xl, cl, sl = grid.lift_all(xs), grid.lift_all(cs), grid.lift_all(ss)
    pairs = interleaved(params or {})
    results, terms = [], []
    for row in range(outer * seq):
        t = row % seq
        for i in range(d):
            j, sign = partner(i, d, pairs)
            a, b, k = row * d + i, row * d + j, t * d + i
            y, yl = (-xs[b], -xl[b]) if sign < 0 else (xs[b], xl[b])
            res, term = grid.element([(xl[a], cl[k], xs[a], cs[k]), (yl, sl[k], y, ss[k])])
            results.append(res)
            terms.append(term)
    shape = tuple(x.shape)
    return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=acc)]
