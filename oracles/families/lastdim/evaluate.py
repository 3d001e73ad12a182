"""The evaluation skeleton of the row ops: the input cut into rows of its last axis, each row
evaluated by ``oracles.families.lastdim.softmax`` (mpmath, imported on first use) or
``oracles.families.lastdim.norms`` (exact rationals), the rows' results boxed with their terms
for the derived row bound."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from numerics.rounding import float_spec


def _rows_of(x: np.ndarray, params: Mapping[str, Any]) -> tuple[np.ndarray, int]:
    last = x.shape[-1] if x.ndim else 1
    outer = x.size // last if last else math.prod(x.shape[:-1])
    want = (int(params.get("outer_count", outer)), int(params.get("last_dim", last)))
    if want != (outer, last):
        raise ValueError(f"params outer_count={want[0]}, last_dim={want[1]} do not match an input "
                         f"of shape {list(x.shape)} (expected {outer}, {last})")
    return x.reshape(outer, last), last


def row_op(kind: str):
    def evaluate(inputs, params, out_dtypes, rules):
        from oracles.families.lastdim import norms, softmax
        from oracles.output import float_output, output_spec
        from oracles.shapes import as_floats, object_array
        from oracles.sums import acc_format

        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        rows, _ = _rows_of(x, params or {})
        acc_name = acc_format(x.dtype)
        acc = float_spec(acc_name)
        eps = Fraction(float((params or {}).get("eps", 0.0)))
        results, terms = [], []
        for row in rows:
            values = as_floats(row)
            if kind in ("softmax", "log_softmax"):
                r, t = softmax.softmax_row(values, s, acc, log=kind == "log_softmax")
            else:
                r, t = (norms.rms_row if kind == "rms" else norms.layer_row)(values, eps, s, acc)
            results += r
            terms += t
        return [float_output(results, fmt, x.shape, terms=object_array(terms, x.shape),
                             acc_format=acc_name)]

    evaluate.__name__ = f"{kind}_last_dim"
    return evaluate
