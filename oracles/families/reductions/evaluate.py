"""Reductions: sums and means (exact, one rounding), extrema, index reductions, reduce-to and the
ReduceMaxTo gradient.

Sums are formed exactly as integers: every input is a multiple of the smallest subnormal of its
format, so Σx = (Σ x·2^-qmin)·2^qmin with integer terms. Half-precision inputs reduce to their
exact sum as well; ``oracles.sums.acc_format`` names the accumulator the derived bound assumes (F32 for
BF16/F16, the input format otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from numerics.formats import dtype_name
from numerics.rounding import float_spec, ints_to_array
from oracles import arith, edges
from oracles.output import OracleOutput, float_output, out_format, output_spec, resolve_rule
from oracles.shapes import as_floats, object_array, reduce_groups, reduce_to_dims
from oracles.sums import acc_format

INF = math.inf


def _dims_params(params: Mapping, rank: int) -> tuple[tuple[int, ...], bool]:
    dims = params.get("dims")
    if dims is None:
        raise ValueError(f"reduction params need 'dims' (got {dict(params)})")
    return tuple(int(d) for d in dims), bool(params.get("keepdim", False))


def _reduce_to_params(params: Mapping, x: np.ndarray) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]:
    """The input reshaped to input_shape, the collapsed axes and the output shape."""
    try:
        input_shape = tuple(int(n) for n in params["input_shape"])
        output_shape = tuple(int(n) for n in params["output_shape"])
    except KeyError as e:
        raise ValueError(f"reduce-to params need input_shape and output_shape (got {dict(params)})") from e
    if math.prod(input_shape) != x.size:
        raise ValueError(f"input_shape {list(input_shape)} does not match an input of {x.size} elements")
    return x.reshape(input_shape), reduce_to_dims(input_shape, output_shape), output_shape


# --- sum and mean ------------------------------------------------------------------------------


def _exact_sum(values: list[float], scale_exp: int):
    """Σ values as (special float | None, integer numerator over 2^scale_exp, Σ|x| numerator,
    all-negative-zero flag). ``special`` is NaN or ±inf when the sum is not finite."""
    total = 0
    abs_total = 0
    pos_inf = neg_inf = False
    all_neg_zero = bool(values)
    unit = 1 << scale_exp
    for v in values:
        if v != v:
            return math.nan, 0, 0, False
        if v == INF:
            pos_inf = True
            continue
        if v == -INF:
            neg_inf = True
            continue
        if v != 0 or not arith.signbit(v):
            all_neg_zero = False
        if v:
            n, d = v.as_integer_ratio()
            k = n * (unit // d)
            total += k
            abs_total += abs(k)
    if pos_inf and neg_inf:
        return math.nan, 0, 0, False
    if pos_inf or neg_inf:
        return (INF if pos_inf else -INF), 0, 0, False
    return None, total, abs_total, all_neg_zero


def _sum_like(x: np.ndarray, groups: np.ndarray, s, *, mean: bool, order: str):
    in_spec = float_spec(dtype_name(x.dtype))
    scale_exp = -in_spec.qmin
    denom = 1 << scale_exp
    acc = acc_format(x.dtype)
    limit = edges.overflow_threshold(float_spec(acc))
    flat = as_floats(x)
    results, terms = [], []
    for row in groups:
        values = [flat[i] for i in row]
        count = len(values)
        special, total, abs_total, neg_zero = _exact_sum(values, scale_exp)
        terms.append((count, Fraction(abs_total, denom)))
        if mean and count == 0:
            results.append(arith.nan(s))
            continue
        if special is not None:
            result = arith.value(special, s)
        else:
            result = arith.ratio(total, denom * count if mean else denom, s, zero_negative=neg_zero)
        if special is not None or Fraction(abs_total, denom) >= limit:  # some order can overflow
            fixed, admitted = edges.sum_alternatives(values, acc, order)
            if fixed is not None:
                result = arith.value(fixed, s)
            result = edges.with_alternatives(result, admitted)
        results.append(result)
    return results, terms


SUM_ORDER = {"order": "free"}  # SPEC §4: any summation order unless the contract fixes one


def sum_or_mean(mean: bool):
    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        dims, keepdim = _dims_params(params or {}, x.ndim)
        shape, groups = reduce_groups(x.shape, dims, keepdim)
        order = resolve_rule(rules, "order", SUM_ORDER, ("fixed", "free"))
        results, terms = _sum_like(x, groups, s, mean=mean, order=order)
        return [float_output(results, fmt, shape, terms=object_array(terms, shape),
                             acc_format=acc_format(x.dtype))]

    return evaluate


def reduce_sum_to(inputs, params, out_dtypes, rules):
    fmt, s = output_spec(out_dtypes)
    x, dims, out_shape = _reduce_to_params(params or {}, np.asarray(inputs[0]))
    _, groups = reduce_groups(x.shape, dims, keepdim=True)
    order = resolve_rule(rules, "order", SUM_ORDER, ("fixed", "free"))
    results, terms = _sum_like(x, groups, s, mean=False, order=order)
    return [float_output(results, fmt, out_shape, terms=object_array(terms, out_shape),
                         acc_format=acc_format(x.dtype))]


# --- extrema -----------------------------------------------------------------------------------


def _extrema(x: np.ndarray, groups: np.ndarray, s, rules, defaults, largest: bool) -> list:
    """One result per group: the fold's value, with the other zero admitted under unordered
    zeros where the slice holds both."""
    nan_rule = resolve_rule(rules, "nan", defaults, edges.EXTREMA_RULES)
    zeros = resolve_rule(rules, "zeros", defaults, edges.ZERO_RULES)
    init = edges.init_rule(rules)
    flat = as_floats(x)
    results = []
    for row in groups:
        values = [flat[i] for i in row]
        best = edges.fold_extremum(values, nan_rule, largest, init)
        alternatives = edges.other_zeros(values, best) if zeros == "unordered" else ()
        results.append(edges.with_alternatives(arith.value(best, s), alternatives))
    return results


def extremum_reduce(largest: bool, defaults: Mapping[str, str]):
    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        dims, keepdim = _dims_params(params or {}, x.ndim)
        shape, groups = reduce_groups(x.shape, dims, keepdim)
        return [float_output(_extrema(x, groups, s, rules, defaults, largest), fmt, shape)]

    return evaluate


def reduce_max_to(defaults: Mapping[str, str]):
    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        x, dims, out_shape = _reduce_to_params(params or {}, np.asarray(inputs[0]))
        _, groups = reduce_groups(x.shape, dims, keepdim=True)
        return [float_output(_extrema(x, groups, s, rules, defaults, True), fmt, out_shape)]

    return evaluate


def reduce_max_to_backward(defaults: Mapping[str, str]):
    """grad_x[i] = upstream[j(i)] / ties(j) where x[i] == max of its group (IEEE equality, so a
    NaN maximum selects nobody), else +0. The share is the exact quotient, rounded once."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        nan_rule = resolve_rule(rules, "nan", defaults, ("propagate", "ignore"))
        x, dims, out_shape = _reduce_to_params(params or {}, np.asarray(inputs[0]))
        upstream = as_floats(np.asarray(inputs[1]))
        if len(upstream) != math.prod(out_shape):
            raise ValueError(f"upstream has {len(upstream)} elements; output_shape {list(out_shape)} "
                             f"needs {math.prod(out_shape)}")
        _, groups = reduce_groups(x.shape, dims, keepdim=True)
        flat = as_floats(x)
        results: list = [arith.zero(False, s)] * len(flat)
        for j, row in enumerate(groups):
            m = edges.fold_extremum([flat[i] for i in row], nan_rule, True, edges.init_rule(rules))
            winners = [i for i in row if flat[i] == m]
            if not winners:
                continue
            share = arith.div(upstream[j], float(len(winners)), s)
            for i in winners:
                results[i] = share
        return [float_output(results, fmt, x.shape)]

    return evaluate


# --- index reductions --------------------------------------------------------------------------


def _arg_extremum(values: Sequence[float], nan_rule: str, largest: bool) -> int:
    """First index of the extremum. ``ignore``: NaN never wins, an all-NaN slice gives 0;
    ``propagate``: the first NaN wins."""
    best_i = -1
    best = math.nan
    for i, v in enumerate(values):
        if v != v:
            if nan_rule == "propagate":
                return i
            continue
        if best_i < 0 or (v > best if largest else v < best):
            best_i, best = i, v
    return max(best_i, 0)


def arg_extremum(largest: bool, defaults: Mapping[str, str]):
    def evaluate(inputs, params, out_dtypes, rules):
        fmt = out_format(out_dtypes)
        nan_rule = resolve_rule(rules, "nan", defaults, ("ignore", "propagate"))
        resolve_rule(rules, "ties", defaults, ("first_index",))
        x = np.asarray(inputs[0])
        dims, keepdim = _dims_params(params or {}, x.ndim)
        if len(dims) != 1:
            raise ValueError(f"an index reduction takes exactly one dim, got {list(dims)}")
        if x.shape[dims[0]] == 0:
            raise ValueError(f"an index reduction over the empty axis {dims[0]} of {x.shape} is undefined")
        shape, groups = reduce_groups(x.shape, dims, keepdim)
        flat = as_floats(x)
        idx = [_arg_extremum([flat[i] for i in row], nan_rule, largest) for row in groups]
        return [OracleOutput(expected=ints_to_array(idx, fmt, shape))]

    return evaluate
