"""The shape of an oracle's results (one ``OracleOutput`` per output of an evaluation)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
