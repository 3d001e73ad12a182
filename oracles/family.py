"""The family interface: what the Judge knows of one family of OpKinds, behind hooks the harness
calls without knowing the family's name (SPEC §2, "a family is one place").

A family is a package under ``oracles/families/`` that exports ``FAMILY``, a ``Family``, and is
listed once in ``oracles.table.FAMILIES``. The harness looks an OpKind's family up
(``oracles.family_of``) and calls its hooks; every hook but ``rows`` and ``draw_shapes`` has a
default that fits a family of plain elementwise OpKinds, so a small family sets only what
differs. Hooks receive the contract and its parts as the harness parsed them (``contract.inputs``,
``contract.op_params.field(name)``, ``spec.rank``, ``spec.layout``): they read them, never import
the harness (an import-linter contract keeps ``oracles`` below ``judge``).

    FAMILY = Family(
        name="negation",
        rows=lambda: [OpDef("NegElementwise", 1, True, {"nan": "propagate"}, evaluate_neg)],
        draw_shapes=oracles.drawing.free_shapes,  # one shape for every operand
        elementwise=True,
    )

The README's "Adding a family" shows a whole one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracles.opdef import OpDef, Shape

DrawFn = Callable[[Any], Any]  # Hypothesis' ``draw``: a strategy in, one value out
Fill = Callable[[int], np.ndarray]  # count -> that many stored values of an operand
# (draw, input spec, dtype, logical shape, fill) -> the operand, opaque to the family: the
# harness draws its memory layout within what the spec accepts and builds the view.
BuildOperand = Callable[[DrawFn, Any, str, Shape, Fill], Any]

REDUCED_AXIS = 256  # elements along the last axis of a measured call that folds rows


@dataclass(frozen=True)
class Budget:
    """Size limits of generated cases (the pure oracle's cost grows with elements).

    ``long_row``: the longest row an accumulating OpKind (a sum, a product's k, a prefix sum, a
    row op) is also given, in its family's share of cases: an accumulator too narrow for its
    contract only shows over long rows.
    """

    max_rank: int = 4
    max_side: int = 5
    max_elements: int = 48
    long_row: int = 4096


@dataclass(frozen=True)
class OutputShapeRule:
    """An output shape rule a family defines (``shape_rule: matmul(lhs, rhs)`` in a contract):
    how many operand names it takes (``arity``: lo, hi; hi None: any number) and the output
    shape from those operands' shapes and the op params."""

    arity: tuple[int, int | None]
    shape: Callable[[Sequence[Shape], Mapping[str, Any]], Shape]


@dataclass(frozen=True)
class BatchRows:
    """How a case stacks independent rows along one axis (``Family.batch_rows``): a reduction's
    kept axis, a row op's outer axis, a matmul's m. ``inputs``: each operand's batch axis (None:
    the operand is shared by every row, as a matmul's rhs); ``outputs``: each output's;
    ``params(count)``: the op params of the same call with ``count`` rows.

    The harness computes a row alone, in the batch, at another position and in a larger batch
    (``judge.invariance``), and compares the row's output bits.
    """

    inputs: tuple[int | None, ...]
    outputs: tuple[int, ...]
    params: Callable[[int], dict[str, Any]]


def _no_batch_rows(contract, opdef, shapes, params):
    return None


def same_params(params: Mapping[str, Any]) -> Callable[[int], dict[str, Any]]:
    """A ``BatchRows.params`` for OpKinds whose op params do not depend on the row count."""
    return lambda count: dict(params)


def _no_fixed_input(opdef, i, dtype, shapes, params):
    return None


def _no_long_case(contract, opdef, dtypes, longest, operand):
    return None


def _reaches_nothing(opdef, flagged, params, out_shape) -> np.ndarray:
    return np.zeros(out_shape, bool)


def _no_explanation(opdef, values, params, shape, i, observed, expected):
    return None


def _no_grid(contract, opdef, dtypes):
    return None


def _breaks_nothing(contract, opdef, rule, values, params, rng):
    return None


@dataclass(frozen=True)
class Family:
    """One family's hooks. ``Shape`` is a tuple of ints; ``contract`` a parsed FKC contract.

    name: the family's name (for messages and ``judge show``; the harness never compares it).
    rows: () -> its OpKinds, one ``OpDef`` each (the oracle table's rows).
    draw_shapes: (draw, contract, opdef, budget) -> (each operand's logical shape, op params) of
        a generated case, drawn with ``draw`` within the contract's ranks, shape constraints and
        op-param constraints, and within the ``Budget``.
    draw_input: (opdef, input position, dtype, shapes, params) -> a strategy of operand i's
        stored values (logical shape, C order) where they are not free (indices within an axis,
        a mask), or None for the harness's edge-biased values. A hook may also write into
        ``params`` what depends on the item's dtype (a fill element).
    long_case: (contract, opdef, input dtypes, longest row, operand) -> a strategy of
        (operands, op params), each operand built by ``operand(draw, spec, dtype, shape, fill)``:
        the adversarial long rows that expose a too-narrow accumulator; None for OpKinds without
        one. It is drawn in one case of ``long_share``.
    elementwise: output element i depends on the input elements broadcast to i alone: a failure
        message shows those inputs, and a NaN input reaches exactly the outputs it broadcasts to.
    reach: (opdef, flagged input masks, params, output shape) -> the output elements a flagged
        input element contributes to (how a NaN input is told apart from a wrong value in an
        integer output); used where ``elementwise`` is False.
    explain_mismatch: (opdef, input values, params, output shape, flat index, observed,
        expected) -> (check, why) for a differing integer output element the family can explain
        (an index reduction's tie), or None for the harness's own reading.
    size_plan: (contract, opdef, n) -> (operand shapes, op params) of the call ``judge measure``
        times at size n (the primary operand holding n elements); None where the family has
        none yet.
    shape_rules: the output shape rules it defines, by name.
    example_params: (opdef, shape) -> op params of a hand-built call on a primary operand of
        ``shape``; None where the family's shapes and params are tied (no hand-built call).
    batch_rows: (contract, opdef, operand shapes, params) -> the ``BatchRows`` of a case whose
        outputs are computed row by row, independently (batch and position invariance, SPEC
        §4), or None where the case has no such rows; by default not applicable.
    value_grid: (contract, opdef, input dtypes) -> one 1-D array of values per operand (in its
        dtype) whose full cross product every item also judges, as one deterministic case
        beside the search (``oracles.drawing.special_value_grid``: the format's special values
        and the OpKind's hints); None where the family has no such grid.
    break_rule: (contract, opdef, rule, operand values, params, rng) -> (operand values,
        params) of an error input that breaks the stated validation ``rule`` (an index out of
        its axis, a broken divisibility) and keeps every other rule, from a valid case's values
        (contiguous, C order) and params; None where the family cannot break that rule on this
        case. The harness breaks the rules the accept clause implies (operand count, dtypes).
    """

    name: str
    rows: Callable[[], list[OpDef]]
    draw_shapes: Callable[[DrawFn, Any, OpDef, Budget], tuple[list[Shape], dict[str, Any]]]
    draw_input: Callable[[OpDef, int, str, Sequence[Shape], dict[str, Any]], Any] = _no_fixed_input
    long_case: Callable[[Any, OpDef, tuple[str, ...], int, BuildOperand], Any] = _no_long_case
    long_share: int = 4
    elementwise: bool = False
    reach: Callable[[OpDef, Sequence[np.ndarray], dict[str, Any], Shape], np.ndarray] = _reaches_nothing
    explain_mismatch: Callable[..., tuple[str, str] | None] = _no_explanation
    size_plan: Callable[[Any, OpDef, int], tuple[list[Shape], dict[str, Any]]] | None = None
    shape_rules: Mapping[str, OutputShapeRule] = field(default_factory=dict)
    example_params: Callable[[OpDef, Shape], dict[str, Any]] | None = None
    batch_rows: Callable[[Any, OpDef, Sequence[Shape], dict[str, Any]], BatchRows | None] = _no_batch_rows
    value_grid: Callable[[Any, OpDef, tuple[str, ...]], tuple[np.ndarray, ...] | None] = _no_grid
    break_rule: Callable[..., tuple[tuple[np.ndarray, ...], dict[str, Any]] | None] = _breaks_nothing


def measured_shape(contract, n: int, *, rows: bool) -> Shape:
    """The primary operand's shape at size n in ``judge measure``: the lowest rank the contract
    accepts (at least 1); an OpKind that folds rows (``rows``) takes rank 2 where it may, rows of
    ``REDUCED_AXIS`` elements."""
    rank_range = contract.inputs[0].rank
    rank = max(rank_range.lo, 2 if rows else 1)
    if rank_range.hi is not None:
        rank = min(rank, rank_range.hi)
    if rank == 0:
        raise ValueError(f"{contract.kernel}: accepts only rank 0, which has no size to vary")
    if rank == 1:
        return (n,)
    inner = min(n, REDUCED_AXIS)
    return (1,) * (rank - 2) + (n // inner, inner)


def plan_by_rule(contract, opdef: OpDef, n: int, *, rows: bool) -> tuple[list[Shape], dict[str, Any]]:
    """A ``size_plan`` for OpKinds whose operands all take the primary shape and whose params
    follow their ``ParamRule``."""
    shape = measured_shape(contract, n, rows=rows)
    params = opdef.params.measure(shape, contract.op_params) if opdef.params else {}
    return [shape for _ in contract.inputs], params
