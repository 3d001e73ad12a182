"""The backward family: the gradients of the row ops and of PowI, each the exact derivative of
its forward reference.

- SoftmaxLastDimBackward (y, g): y·(g − Σg·y), exact rationals;
- LogSoftmaxLastDimBackward (y, g): g − e^y·Σg, correctly rounded through mpmath;
- RmsNormLastDimBackward, LayerNormLastDimBackward (x, g): the derivatives of
  ``oracles.families.lastdim.norms`` (no affine), exact rationals and square roots;
- PowIElementwiseBackward (x, g) with ``exp`` n: g·n·x^(n−1), exact rationals.

Each element carries a bound derived from its formula and the accumulator (F32 for BF16/F16);
a finite-difference quotient is no oracle here, only a test of these references
(tests/families/backward). Cases, params and long rows: ``oracles.families.backward.draw``.

    >>> import numpy as np, oracles
    >>> y, g = np.array([[0.25, 0.75]], np.float32), np.array([[1.0, 0.0]], np.float32)
    >>> oracles.get("SoftmaxLastDimBackward").evaluate([y, g], {}, ["F32"], {})[0].expected
    array([[ 0.1875, -0.1875]], dtype=float32)
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from oracles.families.backward.draw import ROW_PARAMS, draw_input, draw_shapes, long_case
from oracles.family import Family, plan_by_rule
from oracles.opdef import OpDef

PROPAGATE = {"nan": "propagate", "order": "free"}
ROW_DOMAIN = ("rows of the last axis; inputs (forward {first}, upstream gradient g) of one shape; "
              "{formula}; specials follow the IEEE operations of that formula in some order of "
              "evaluation (an element it makes ±inf in a row holding an infinity may also be NaN)")
DOMAINS = {
    "SoftmaxLastDimBackward": ("output y", "dx = y·(g − Σ g·y)"),
    "LogSoftmaxLastDimBackward": ("output y", "dx = g − exp(y)·Σ g"),
    "RmsNormLastDimBackward": ("input x", "dx = g/r − x·Σ(g·x)/(n·r³), r = sqrt(Σx²/n + eps)"),
    "LayerNormLastDimBackward": ("input x", "dx = (g − mean(g) − y·mean(g·y))/σ, y = (x − μ)/σ, "
                                 "σ = sqrt(population variance + eps)"),
}
POWI_DOMAIN = ("grad_x = upstream·n·x^(n−1); n = 0 gives +0 everywhere (upstream unread); n = 1 gives "
               "upstream for every x; 0^k and inf^k as IEEE pow; an infinite upstream may give NaN "
               "where a partial power of x underflows in the accumulator")


def _row_evaluate(op_kind: str):
    def evaluate(inputs, params, out_dtypes, rules):
        from numerics.rounding import float_spec
        from oracles.families.backward import norms, softmax
        from oracles.families.lastdim.evaluate import _rows_of
        from oracles.output import float_output, output_spec
        from oracles.shapes import as_floats, object_array
        from oracles.sums import acc_format

        fmt, s = output_spec(out_dtypes)
        first, grad = (np.asarray(a) for a in inputs[:2])
        if first.shape != grad.shape:
            raise ValueError(f"{op_kind}: operands of shapes {first.shape} and {grad.shape} differ")
        rows, _ = _rows_of(first, params or {})
        grads = grad.reshape(rows.shape)
        acc_name = acc_format(first.dtype)
        acc = float_spec(acc_name)
        eps = Fraction(float((params or {}).get("eps", 0.0)))
        row = {"SoftmaxLastDimBackward": softmax.softmax_backward_row,
               "LogSoftmaxLastDimBackward": softmax.log_softmax_backward_row,
               "RmsNormLastDimBackward": lambda a, b, s, acc: norms.rms_backward_row(a, b, eps, s, acc),
               "LayerNormLastDimBackward": lambda a, b, s, acc: norms.layer_backward_row(a, b, eps, s, acc),
               }[op_kind]
        results, terms = [], []
        for a, b in zip(rows, grads, strict=True):
            r, t = row(as_floats(a), as_floats(b), s, acc)
            results += r
            terms += t
        return [float_output(results, fmt, first.shape, terms=object_array(terms, first.shape),
                             acc_format=acc_name)]

    evaluate.__name__ = f"{op_kind}_reference"
    return evaluate


def _powi(inputs, params, out_dtypes, rules):
    from oracles.families.backward.powi import evaluate_powi_backward

    return evaluate_powi_backward(inputs, params, out_dtypes, rules)


def rows() -> list[OpDef]:
    from oracles import hints
    from oracles.families.elementwise.params import POWI

    out = [OpDef(kind, 2, False, PROPAGATE, _row_evaluate(kind), params=ROW_PARAMS[kind],
                 hints=hints.summation, domain=ROW_DOMAIN.format(first=first, formula=formula),
                 reduction_bound="sum")
           for kind, (first, formula) in DOMAINS.items()]
    out.append(OpDef("PowIElementwiseBackward", 2, False, PROPAGATE, _powi, params=POWI,
                     hints=hints.power, domain=POWI_DOMAIN, reduction_bound="sum"))
    return out


def reach(opdef, flagged, params, out_shape):
    """A NaN input reaches its whole row (row ops) or its own element (PowI)."""
    hit = np.zeros(out_shape, bool)
    for mask in flagged:
        mask = np.broadcast_to(mask, out_shape)
        if opdef.op_kind in ROW_PARAMS and mask.ndim:
            mask = np.broadcast_to(mask.any(axis=-1, keepdims=True), out_shape)
        hit |= mask
    return hit


def size_plan(contract, opdef, n):
    return plan_by_rule(contract, opdef, n, rows=opdef.op_kind in ROW_PARAMS)


FAMILY = Family(
    name="backward",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    reach=reach,
    size_plan=size_plan,
)
