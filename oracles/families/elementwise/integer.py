"""Affine on integer tensors: ``mul·x + add`` evaluated exactly (x an integer, mul and add the
real numbers their f64 values hold), rounded once to an integer by the contract's rounding rule
and stored by its overflow rule (``numerics.rounding.store_int``). Neither rule has a default:
the inventory states no integer semantics, so a contract says which it promises.

>>> import numpy as np
>>> r = {"rounding": "half_to_even", "overflow": "saturate"}
>>> evaluate_int_affine(np.array([5, 7, 2**30], np.int32), 0.5, 0.0, ["I32"], r)[0].expected.tolist()
[2, 4, 536870912]
"""

from __future__ import annotations

import math
from fractions import Fraction

from numerics.rounding import ints_to_array, store_int
from oracles.output import OracleOutput, out_format, resolve_rule

ROUNDING = ("half_to_even", "half_away_from_zero")
OVERFLOW = ("saturate", "wrap")


def round_to_int(value: Fraction, rule: str) -> int:
    if rule == "half_to_even":
        return round(value)  # Fraction.__round__: ties to even
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def evaluate_int_affine(x, mul: float, add: float, out_dtypes, rules) -> list[OracleOutput]:
    if not (math.isfinite(mul) and math.isfinite(add)):
        raise ValueError(f"integer Affine takes finite mul and add (got {mul}, {add})")
    fmt = out_format(out_dtypes)
    rounding = resolve_rule(rules, "rounding", {}, ROUNDING)
    overflow = resolve_rule(rules, "overflow", {}, OVERFLOW)
    m, a = Fraction(mul), Fraction(add)
    values = [store_int(round_to_int(m * int(v) + a, rounding), fmt, overflow) for v in x.reshape(-1)]
    return [OracleOutput(expected=ints_to_array(values, fmt, x.shape))]
