"""Evaluation skeletons of the elementwise OpKinds.

Each turns a scalar semantic function (``oracles.arith`` / ``oracles.transcendental``) into an
``OpDef.evaluate``: it reads the inputs as Python floats, resolves the semantic rules, maps the
function over the elements (broadcasting the operands of the binary ops, the comparisons and
Where) and boxes the correctly rounded bits into an ``OracleOutput``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from numerics.rounding import ints_to_array
from oracles.output import OracleOutput, float_output, out_format, output_spec, resolve_rule
from oracles.shapes import as_bools, as_floats, broadcast

Evaluate = Callable[[Sequence[np.ndarray], Mapping[str, Any], Sequence[str], Mapping[str, str]], list[OracleOutput]]


def unary(fn, *, rule: str | None = None, defaults: Mapping[str, str] = {},
          allowed: Sequence[str] = ()) -> Evaluate:
    """y[i] = fn(x[i], spec[, rule])."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        xs = as_floats(x)
        if rule is None:
            results = [fn(v, s) for v in xs]
        else:
            r = resolve_rule(rules, rule, defaults, allowed)
            results = [fn(v, s, r) for v in xs]
        return [float_output(results, fmt, x.shape)]

    return evaluate


def unary_with_params(fn, read_params: Callable[[Mapping[str, Any]], tuple]) -> Evaluate:
    """y[i] = fn(x[i], *read_params(params), spec): Affine, Clamp, PowI."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        args = read_params(params or {})
        return [float_output([fn(v, *args, s) for v in as_floats(x)], fmt, x.shape)]

    return evaluate


def binary(fn, *, rule: str | None = None, defaults: Mapping[str, str] = {},
           allowed: Sequence[str] = ()) -> Evaluate:
    """out = fn(a, b, spec[, rule]) over the numpy broadcast of the two inputs."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        shape, (a, b) = broadcast(inputs[:2])
        pairs = zip(as_floats(a), as_floats(b), strict=True)
        if rule is None:
            results = [fn(u, v, s) for u, v in pairs]
        else:
            r = resolve_rule(rules, rule, defaults, allowed)
            results = [fn(u, v, s, r) for u, v in pairs]
        return [float_output(results, fmt, shape)]

    return evaluate


def compare(pred: Callable[[float, float], bool]) -> Evaluate:
    """BOOL out = pred(a, b) under IEEE comparison (a NaN compares unordered)."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt = out_format(out_dtypes)
        shape, (a, b) = broadcast(inputs[:2])
        values = [int(pred(u, v)) for u, v in zip(as_floats(a), as_floats(b), strict=True)]
        return [OracleOutput(expected=ints_to_array(values, fmt, shape))]

    return evaluate


def where(select_value) -> Evaluate:
    """out = cond ? a : b over the broadcast of (cond, a, b); the chosen operand is copied."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        shape, (c, a, b) = broadcast(inputs[:3])
        results = [
            select_value(u if k else v, s)
            for k, u, v in zip(as_bools(c), as_floats(a), as_floats(b), strict=True)
        ]
        return [float_output(results, fmt, shape)]

    return evaluate
