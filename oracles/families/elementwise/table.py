"""The elementwise OpKinds' rows of the oracle table: unary ops, Affine, clamp, PowI, binary
arithmetic, the extrema, comparisons and Where."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from oracles import arith, edges, hints
from oracles.families.elementwise.evaluate import binary, compare, unary, unary_with_params, where
from oracles.families.elementwise.integer import evaluate_int_affine
from oracles.families.elementwise.params import AFFINE, CLAMP, POWI
from oracles.opdef import OpDef

PROPAGATE = {"nan": "propagate"}
# "Exact: returns one of the two operands" never orders -0 below +0 (oracles.edges).
EXTREMA = {"nan": "propagate", "zeros": "unordered"}
CLAMP_RULES = {"nan": "propagate", "zeros": "ordered"}


def _clamp_bounds(params: Mapping[str, Any]) -> tuple[float, float]:
    for lo_key, hi_key in (("min", "max"), ("lo", "hi")):
        if lo_key in params and hi_key in params:
            return float(params[lo_key]), float(params[hi_key])
    raise ValueError(f"clamp params need min/max or lo/hi (got {dict(params)})")


def _affine_params(params: Mapping[str, Any]) -> tuple[float, float]:
    try:
        return float(params["mul"]), float(params["add"])
    except KeyError as e:
        raise ValueError(f"Affine params need mul and add (got {dict(params)})") from e


def _powi_params(params: Mapping[str, Any]) -> tuple[float]:
    try:
        return (float(int(params["exp"])),)
    except KeyError as e:
        raise ValueError(f"PowI params need exp (got {dict(params)})") from e


class _Transcendental:
    """``oracles.transcendental`` (and mpmath behind it), imported on the first evaluation rather
    than when contracts load and look up their OpKind defaults."""

    def __getattr__(self, name: str):
        def call(*args):
            from oracles import transcendental

            return getattr(transcendental, name)(*args)

        call.__name__ = name
        return call


transcendental = _Transcendental()


def _fma_x(x, mul, add, s):
    return arith.fma(x, mul, add, s)


_float_affine = unary_with_params(_fma_x, _affine_params)


def _affine(inputs, params, out_dtypes, rules):
    """Float formats: mul·x + add rounded once; integer ones: ``integer.evaluate_int_affine``."""
    x = np.asarray(inputs[0])
    if x.dtype.kind in "iu":
        return evaluate_int_affine(x, *_affine_params(params or {}), out_dtypes, rules)
    return _float_affine(inputs, params, out_dtypes, rules)


def _powi_x(x, n, s):
    return transcendental.power(x, n, s)


def _unary(kind, fn, hint=hints.none, exact=False, domain="", f64_reference=None):
    return OpDef(kind, 1, exact, PROPAGATE, unary(fn), hints=hint, domain=domain,
                 sweep_inputs="all", f64_reference=f64_reference)


def _nan_select_unary(kind, fn, hint):
    """Relu/Step: a NaN input maps to 0 by default (x > 0 is false), or propagates."""
    defaults = {"nan": "to_zero"}
    return OpDef(kind, 1, True, defaults,
                 unary(fn, rule="nan", defaults=defaults, allowed=("to_zero", "propagate")),
                 hints=hint, nan_rules=("to_zero", "propagate"), sweep_inputs="all")


def _binary(kind, fn, hint=hints.arithmetic):
    return OpDef(kind, 2, False, PROPAGATE, binary(fn), hints=hint, sweep_inputs="grid")


def _extremum(kind, largest):
    return OpDef(kind, 2, True, EXTREMA, edges.extremum_elementwise(largest, EXTREMA),
                 hints=hints.ties, nan_rules=edges.EXTREMA_RULES, sweep_inputs="grid")


def _compare(kind, pred):
    return OpDef(kind, 2, True, {}, compare(pred), hints=hints.ties,
                 nan_rules=(), domain="BOOL out; IEEE comparison: a NaN operand compares false (!= true)",
                 sweep_inputs="grid")


def rows() -> list[OpDef]:
    t = transcendental
    a = arith
    rem_defaults = {"nan": "propagate", "remainder": "floored"}
    round_defaults = {"nan": "propagate", "rounding": "half_to_even"}
    return [
        _unary("NegElementwise", a.neg, hints.ties, exact=True, f64_reference=("neg", 0)),
        _nan_select_unary("ReluElementwise", a.relu, hints.ties),
        _unary("SqrElementwise", a.sqr, hints.sqr, f64_reference=("square", 0)),
        _unary("SqrtElementwise", a.sqrt, hints.sqrt, domain="x >= 0; sqrt(-0) = -0",
               f64_reference=("sqrt", 0)),
        _unary("RsqrtElementwise", a.rsqrt, hints.sqrt, domain="x >= 0; rsqrt(±0) = ±inf",
               f64_reference=("rsqrt", 1)),
        _unary("RecipElementwise", a.recip, hints.recip, f64_reference=("reciprocal", 0)),
        _unary("ExpElementwise", t.exp, hints.exp, f64_reference=("exp", 1)),
        _unary("LogElementwise", t.log, hints.log, domain="x >= 0; log(±0) = -inf",
               f64_reference=("log", 1)),
        _unary("SinElementwise", t.sin, hints.trig, f64_reference=("sin", 2)),
        _unary("CosElementwise", t.cos, hints.trig, f64_reference=("cos", 2)),
        _unary("TanhElementwise", t.tanh, hints.saturating, f64_reference=("tanh", 1)),
        _unary("SigmoidElementwise", t.sigmoid, hints.saturating),
        _unary("SiluElementwise", t.silu, hints.saturating),
        _unary("GeluElementwise", t.gelu_tanh, hints.gelu,
               domain="tanh form 0.5·x·(1+tanh(√(2/π)(x+0.044715x³))), exact then rounded once"),
        _unary("GeluErfElementwise", t.gelu_erf, hints.gelu),
        _unary("ErfElementwise", t.erf, hints.saturating, f64_reference=("erf", 2)),
        _unary("AbsElementwise", a.absolute, hints.ties, exact=True, f64_reference=("abs", 0)),
        _unary("SignElementwise", a.sign, hints.ties, exact=True, domain="sign(±0) = +0"),
        _nan_select_unary("StepElementwise", a.step, hints.ties),
        _unary("FloorElementwise", a.floor, hints.rounding_ties, exact=True, f64_reference=("floor", 0)),
        _unary("CeilElementwise", a.ceil, hints.rounding_ties, exact=True, f64_reference=("ceil", 0)),
        OpDef("RoundElementwise", 1, True, round_defaults,
              unary(a.round_to_integer, rule="rounding", defaults=round_defaults,
                    allowed=("half_to_even", "half_away_from_zero")),
              hints=hints.rounding_ties, sweep_inputs="all"),
        OpDef("PowIElementwise", 1, False, PROPAGATE, unary_with_params(_powi_x, _powi_params),
              params=POWI, hints=hints.power, domain="exp: i32; pow(x, 0) = 1 even for NaN"),
        OpDef("Affine", 1, False, PROPAGATE, _affine,
              params=AFFINE, hints=hints.arithmetic,
              domain="mul·x + add exactly, rounded once (integer x: to an integer by the rounding "
                     "rule, stored by the overflow rule)"),
        OpDef("ClampElementwise", 1, True, CLAMP_RULES,
              edges.clamp_elementwise(_clamp_bounds, CLAMP_RULES), params=CLAMP, hints=hints.ties,
              domain="zeros ordered: min(max(x, lo), hi), -0 below +0; unordered: two IEEE "
                     "comparison-selects; NaN propagates"),
        _binary("AddElementwise", a.add),
        _binary("SubElementwise", a.sub),
        _binary("MulElementwise", a.mul),
        _binary("DivElementwise", a.div, hints.division),
        _extremum("MaximumElementwise", True),
        _extremum("MinimumElementwise", False),
        OpDef("PowElementwise", 2, False, PROPAGATE, binary(t.power), hints=hints.power,
              domain="C99 Annex F pow", sweep_inputs="grid", f64_reference=("pow", 2)),
        OpDef("RemElementwise", 2, False, rem_defaults,
              binary(a.remainder, rule="remainder", defaults=rem_defaults,
                     allowed=("floored", "truncated")),
              hints=hints.division, domain="floored: sign of the divisor; truncated: C fmod",
              sweep_inputs="grid"),
        _compare("EqualElementwise", lambda u, v: u == v),
        _compare("NotEqualElementwise", lambda u, v: u != v),
        _compare("LessElementwise", lambda u, v: u < v),
        _compare("LessEqualElementwise", lambda u, v: u <= v),
        _compare("GreaterElementwise", lambda u, v: u > v),
        _compare("GreaterEqualElementwise", lambda u, v: u >= v),
        OpDef("Where", 3, True, {}, where(a.value), hints=hints.ties,
              nan_rules=("propagate",), domain="cond BOOL; broadcast(cond, a, b)"),
    ]
