"""The reductions' rows of the oracle table."""

from __future__ import annotations

from oracles import edges, hints
from oracles.families.reductions import evaluate as r
from oracles.families.reductions.params import (
    REDUCE_DIMS,
    REDUCE_TO,
    REDUCE_TO_BACKWARD,
    SINGLE_DIM,
)
from oracles.opdef import OpDef

EXTREMA_RULES = edges.EXTREMA_RULES
# "Exact: returns one of the two operands" never orders -0 below +0 (oracles.edges).
EXTREMA = {"nan": "propagate", "zeros": "unordered"}
SUMS = {"nan": "propagate", "order": "free"}  # SPEC §4: the bound holds for any summation order
ARG = {"nan": "ignore", "ties": "first_index"}
BACKWARD = {"nan": "propagate", "ties": "fair_share"}


def rows() -> list[OpDef]:
    return [
        OpDef("SumReduce", 1, False, SUMS, r.sum_or_mean(mean=False), params=REDUCE_DIMS,
              hints=hints.summation, reduction_bound="sum"),
        OpDef("MeanReduce", 1, False, SUMS, r.sum_or_mean(mean=True), params=REDUCE_DIMS,
              hints=hints.summation, domain="mean of an empty set is NaN", reduction_bound="mean",
              nonempty=True),
        OpDef("MaxReduce", 1, True, EXTREMA, r.extremum_reduce(True, EXTREMA), params=REDUCE_DIMS,
              hints=hints.ties, nan_rules=EXTREMA_RULES, nonempty=True),
        OpDef("MinReduce", 1, True, EXTREMA, r.extremum_reduce(False, EXTREMA), params=REDUCE_DIMS,
              hints=hints.ties, nan_rules=EXTREMA_RULES, nonempty=True),
        OpDef("ReduceSumTo", 1, False, SUMS, r.reduce_sum_to, params=REDUCE_TO,
              hints=hints.summation, reduction_bound="sum"),
        OpDef("ReduceMaxTo", 1, True, EXTREMA, r.reduce_max_to(EXTREMA), params=REDUCE_TO,
              hints=hints.ties, nan_rules=EXTREMA_RULES, nonempty=True),
        OpDef("ReduceMaxToBackward", 2, False, BACKWARD, r.reduce_max_to_backward(BACKWARD),
              params=REDUCE_TO_BACKWARD, hints=hints.ties, nan_rules=EXTREMA_RULES, nonempty=True,
              domain="upstream / tie count at x == max (IEEE ==), +0 elsewhere"),
        OpDef("ArgMaxDim", 1, True, ARG, r.arg_extremum(True, ARG), params=SINGLE_DIM,
              hints=hints.ties, nan_rules=("ignore", "propagate"),
              domain="U32 out; first index wins ties", nonempty=True),
        OpDef("ArgMinDim", 1, True, ARG, r.arg_extremum(False, ARG), params=SINGLE_DIM,
              hints=hints.ties, nan_rules=("ignore", "propagate"),
              domain="U32 out; first index wins ties", nonempty=True),
    ]
