"""The scans family: SelectiveScan (Mamba's selective state space scan) and SsdChunkScan
(Mamba-2's state space duality scan), the linear recurrence

    h_t = exp(δ'_t·a)·h_{t−1} + δ'_t·b_t·x_t,   y_t = ⟨h_t, c_t⟩

correctly rounded through mpmath at the precision the rounding needs (``rounding``), each output
held to a bound derived from the recurrence and the accumulator (``bounds``): it grows with the
path a term travels, which a state carried in a narrower format than the accumulator breaks.
Operand roles and special values are in ``lanes``; cases and long sequences in ``draw``.
"""

from __future__ import annotations

from oracles.families.scans.draw import data_hints, draw_input, draw_shapes, long_case
from oracles.families.scans.lanes import selective_scan, ssd_chunk_scan
from oracles.family import Family
from oracles.opdef import OpDef

SCANS = {"nan": "propagate"}

SELECTIVE_DOMAIN = ("u, delta [batch, seqlen, dim]; a [dim, dstate] <= 0; b, c [batch, seqlen, dstate]; "
                    "delta' = softplus(delta) if delta_softplus else delta (>= 0); "
                    "h_t = exp(delta'_t a) h_{t-1} + delta'_t b_t u_t, y_t = sum_n c_t h_t; NaN reaches "
                    "the outputs its state or readout enters, an infinity those too (NaN or ±inf)")
SSD_DOMAIN = ("x [batch, seqlen, heads, head_dim]; dt [batch, seqlen, heads] >= 0; a [heads] <= 0; "
              "b, c [batch, seqlen, heads, state_dim]; h_t = exp(dt_t a) h_{t-1} + dt_t x_t b_t, "
              "y_t = h_t c_t (ssd_minimal_discrete of X dt, A dt); chunk_size divides seqlen")


def rows() -> list[OpDef]:
    return [
        OpDef("SelectiveScan", 5, False, SCANS, selective_scan, hints=data_hints,
              domain=SELECTIVE_DOMAIN, reduction_bound="sum"),
        OpDef("SsdChunkScan", 5, False, SCANS, ssd_chunk_scan, hints=data_hints,
              domain=SSD_DOMAIN, reduction_bound="sum"),
    ]


FAMILY = Family(
    name="scans",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
)
