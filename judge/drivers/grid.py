"""The special-value grid: one deterministic case per item, judged beside the search.

Where an OpKind's family offers a value grid (``Family.value_grid``: for two- and three-operand
elementwise OpKinds, the format's special values and the OpKind's hints), the item also judges
its full cross product, at every profile: a search draws a given pair of special values (pow's
(NaN, 0), mul's (0, inf)) in a few cases of a thousand, and a fast path wrong on one of them
passes until it does. The operands are contiguous, of one shape the contract accepts for every
operand: 1-D where it accepts rank 1, else a 2-D table (the first operand's values down the
rows) padded with leading unit axes to the lowest rank it accepts.

A failing grid case is narrowed, by halving its elements (the OpKind is elementwise, so a failing
element fails alone), to one element that still breaks the same promise: the counterexample.

>>> from judge.drivers.grid import grid_case   # doctest: +SKIP
>>> grid_case(contract, "F32").values[0].shape  # doctest: +SKIP
(729,)
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from judge.cases import Case
from judge.contracts.model import Contract
from judge.layouts import CONTIGUOUS, build_view

_MAX_RANK = 8


def _rank(contract: Contract) -> int | None:
    """The lowest rank of at least 1 that every operand accepts, or None."""
    for rank in range(1, _MAX_RANK + 1):
        if all(spec.rank.contains(rank) for spec in contract.inputs):
            return rank
    return None


def _shape(rank: int, count: int, rows: int) -> tuple[int, ...]:
    if rank == 1:
        return (count,)
    return (1,) * (rank - 2) + (rows, count // rows)


def _case(contract: Contract, dtype: str, dtypes: tuple[str, ...], flat: list[np.ndarray],
          shape: tuple[int, ...]) -> Case:
    views, values = [], []
    for _spec, dt, v in zip(contract.inputs, dtypes, flat, strict=True):
        stored = np.ascontiguousarray(v).reshape(shape)
        views.append(build_view(stored, shape, CONTIGUOUS, dt))
        values.append(stored.copy())
    return Case(dtype, tuple(views), tuple(values), tuple(CONTIGUOUS for _ in flat), {})


def grid_case(contract: Contract, dtype: str) -> Case | None:
    """The item's special-value grid case, or None where its OpKind's family has no grid, the
    contract takes op params, or no rank fits every operand."""
    import oracles
    from judge.strategies import input_dtypes
    from judge.sweep.run import DERIVED_PARAMS

    try:
        opdef = oracles.get(contract.op_kind or "")
    except KeyError:
        return None
    if any(f.name not in DERIVED_PARAMS for f in contract.op_params.fields):
        return None
    dtypes = input_dtypes(contract, dtype)
    sets = oracles.family_of(opdef.op_kind).value_grid(contract, opdef, dtypes)
    rank = _rank(contract)
    if sets is None or rank is None or len(sets) != len(contract.inputs):
        return None
    crossed = np.meshgrid(*(np.arange(len(s)) for s in sets), indexing="ij")
    flat = [s[idx.reshape(-1)] for s, idx in zip(sets, crossed, strict=True)]
    count = math.prod(len(s) for s in sets)
    return _case(contract, dtype, dtypes, flat, _shape(rank, count, len(sets[0])))


def part(contract: Contract, case: Case, lo: int, hi: int) -> Case:
    """The elements [lo, hi) of a grid case (C order), as a case of their own."""
    from judge.strategies import input_dtypes

    flat = [v.reshape(-1)[lo:hi] for v in case.values]
    rank = _rank(contract) or 1
    return _case(contract, case.dtype, input_dtypes(contract, case.dtype), flat,
                 _shape(rank, hi - lo, 1))


def narrow(contract: Contract, case: Case, failures, findings: list) -> tuple[Case, list]:
    """(the smallest part of ``case`` found by halving whose ``failures(part)`` are not empty,
    those failures); ``(case, findings)`` if no half fails (the failure then needs more than
    one element)."""
    lo, hi = 0, case.values[0].size
    found = (case, findings)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        for a, b in ((lo, mid), (mid, hi)):
            piece = part(contract, case, a, b)
            failed = failures(piece)
            if failed:
                lo, hi, found = a, b, (piece, failed)
                break
        else:
            break
    return found


def judge_grid(contract: Contract, backend, dtype: str, opdef, repeats: int, expected: dict, judge):
    """Judge the item's grid case with ``judge(case) -> (outcome, unexpected findings)`` (the
    search's, which counts it in the item's row); None if it conforms, else (the narrowed case,
    its unexpected findings, each message saying it came from the grid)."""
    from judge import verdict
    from judge.drivers.case import judge_case

    case = grid_case(contract, dtype)
    if case is None:
        return None
    _, unexpected = judge(case)
    if not unexpected:
        return None
    check = unexpected[0].check

    def failures(piece: Case) -> list:
        outcome = judge_case(contract, backend, piece, opdef, repeats=repeats)
        failed = verdict.split(outcome.findings, expected)[0]
        return failed if any(f.check == check for f in failed) else []

    smallest, findings = narrow(contract, case, failures, unexpected)
    return smallest, [replace(f, message=f"special-value grid: {f.message}") for f in findings]
