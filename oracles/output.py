"""The shape of an oracle's results (one ``OracleOutput`` per output of an evaluation), and the
helpers every family boxes its results with: the output format, the correctly rounded bits
with their exact values, and the semantic rule an evaluation resolves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.formats import dtype_name, get_format
from numerics.rounding import FloatSpec, bits_to_array, float_spec
from oracles.shapes import object_array


@dataclass(frozen=True)
class OracleOutput:
    """One output of an oracle evaluation.

    expected: correctly rounded result, output shape, numpy dtype of the output format
        (ml_dtypes.bfloat16 for BF16, bool for BOOL, uint32 for U32).
    exact: object array (same shape) of the exact real value of each element (``Fraction``
        or high-precision ``mpmath.mpf``), or None per element where the exact result is NaN,
        ±inf or the output is not a float format. None for the whole array when not applicable.
    terms: reductions only: object array (same shape) of ``(count, abs_sum)`` with ``abs_sum``
        the exact ``Fraction`` Σ|x_i| over the elements folded into that output (for SPEC §4's
        derived reduction bound). None otherwise.
    acc_format: reductions only: the accumulator format name the bound uses ("F32" for half
        inputs, the input format otherwise).
    admitted: object array (same shape) of tuples of further results the contract admits for
        that element (Python floats; a NaN admits any NaN), e.g. either zero of an equal pair
        under unordered zeros (``oracles.edges``); None where every element has one result.
    """

    expected: np.ndarray
    exact: np.ndarray | None = None
    terms: np.ndarray | None = None
    acc_format: str | None = None
    admitted: np.ndarray | None = None


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
