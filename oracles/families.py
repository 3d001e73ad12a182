"""Evaluation skeletons shared by OpKinds of one family.

A family turns a scalar semantic function (``oracles.arith`` / ``oracles.transcendental``) into an
``OpDef.evaluate``: it reads the inputs as Python floats, resolves the semantic rules, maps the
function over the elements (broadcasting where the family does) and boxes the correctly rounded
bits into an ``OracleOutput``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from numerics.formats import dtype_name, get_format
from numerics.rounding import FloatSpec, bits_to_array, float_spec, ints_to_array
from oracles.output import OracleOutput
from oracles.shapes import as_bools, as_floats, broadcast, object_array

Evaluate = Callable[[Sequence[np.ndarray], Mapping[str, Any], Sequence[str], Mapping[str, str]], list[OracleOutput]]


def out_format(out_dtypes: Sequence, i: int = 0) -> str:
    d = out_dtypes[i]
    return d if isinstance(d, str) else dtype_name(d)


def resolve_rule(rules: Mapping[str, str] | None, key: str, defaults: Mapping[str, str],
                 allowed: Sequence[str]) -> str:
    """The rule to evaluate under: the derived one, or the OpKind default where unspecified."""
    value = (rules or {}).get(key)
    if value in (None, "unspecified"):
        value = defaults.get(key)
    if value not in allowed:
        raise ValueError(f"{key} rule {value!r} cannot be evaluated here (supported: {', '.join(allowed)})")
    return value


def float_output(results: list[tuple[int, Any]], fmt: str, shape: tuple[int, ...],
                 **extra) -> OracleOutput:
    """Results are (bits, exact) or (bits, exact, admitted alternatives) (``oracles.edges``)."""
    bits = [r[0] for r in results]
    exact = object_array([r[1] for r in results], shape)
    if any(len(r) > 2 for r in results):
        extra["admitted"] = object_array([r[2] if len(r) > 2 else () for r in results], shape)
    return OracleOutput(expected=bits_to_array(bits, fmt, shape), exact=exact, **extra)


def output_spec(out_dtypes) -> tuple[str, FloatSpec]:
    fmt = out_format(out_dtypes)
    if not get_format(fmt).is_float:
        raise ValueError(f"expected a float output format, got {fmt}")
    return fmt, float_spec(fmt)


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
