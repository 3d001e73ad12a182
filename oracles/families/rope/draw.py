"""Rope's cases: x of shape [..outer.., seq, head_dim] (head_dim even) with cos and sin tables of
[seq, head_dim], the op params Fuel's wrapper passes (outer_count, seq, head_dim) and the pairing
the contract fixes (``interleaved``); value hints where the two products cancel or overflow.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from numerics.rounding import float_spec
from oracles.drawing import fixed_value
from oracles.hints import hints, neighbours

ANGLES = (0.0, 0.5, 1.0, math.pi / 4, math.pi / 3, 2.0, math.pi / 2, 3.0)


def pairing_of(contract) -> int:
    """1 where the contract fixes the interleaved pairing, else 0 (rotate_half)."""
    value = fixed_value(contract.op_params, "interleaved")
    return int(value) if value is not None else 0


@st.composite
def _rope_shapes(draw, contract, budget):
    """x's rank at least 2; an empty outer axis or sequence about one draw in sixteen."""
    lo = max(2, contract.inputs[0].rank.lo)
    hi = max(lo, budget.max_rank if contract.inputs[0].rank.hi is None
             else min(contract.inputs[0].rank.hi, budget.max_rank))
    rank = draw(st.integers(lo, hi))
    empty = draw(st.integers(0, 15)) == 15
    d = 2 * draw(st.integers(1, 4))
    seq = 0 if empty and draw(st.booleans()) else draw(st.integers(1, max(1, min(4, budget.max_elements // d))))
    room = max(1, budget.max_elements // max(1, seq * d))
    lead = []
    for _ in range(rank - 2):
        side = draw(st.integers(1, max(1, min(3, room))))
        lead.append(side)
        room = max(1, room // side)
    if empty and seq and lead:
        lead[draw(st.integers(0, len(lead) - 1))] = 0
    params = {"outer_count": math.prod(lead), "seq": seq, "head_dim": d,
              "interleaved": pairing_of(contract)}
    return [(*lead, seq, d), (seq, d), (seq, d)], params


def draw_shapes(draw, contract, opdef, budget):
    return draw(_rope_shapes(contract, budget))


@hints
def rope_hints(fmt):
    """cos and sin of a few angles (the realistic tables), equal magnitudes whose products cancel,
    and values whose products overflow the format (an F32 accumulator keeps a half's product)."""
    s = float_spec(fmt)
    trig = [f(a) for a in ANGLES for f in (math.cos, math.sin)]
    big = math.sqrt(2.0 ** s.emax) * 1.5
    return [*trig, 1.0, -1.0, 0.5, 3.0, 1024.0, big, -big, *neighbours(fmt, 2.0 ** (s.emin + 4), 1)]


def size_plan(contract, opdef, n):
    """x of n elements as [outer, seq, head_dim]: head_dim 64 and 16 positions where n allows
    (n a power of two: the measured sizes), smaller otherwise."""
    if n % 2:
        raise ValueError(f"{contract.kernel}: Rope pairs positions, so x needs an even element count, not {n}")
    d = math.gcd(n, 64)
    seq = math.gcd(n // d, 16)
    outer = n // (d * seq)
    return [(outer, seq, d), (seq, d), (seq, d)], {"outer_count": outer, "seq": seq, "head_dim": d,
                                                   "interleaved": pairing_of(contract)}
