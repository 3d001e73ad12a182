"""The pure-Python reference oracle (SPEC §6) and the families of OpKinds it defines.

Ground truth never calls the numeric kernels under judgement (numpy ufuncs, torch, cupy): values
are computed exactly (``fractions``) or with ``mpmath`` at sufficient precision, then rounded
correctly into the output format (``numerics.rounding``). ``oracles`` never imports ``backends``,
nor the harness above it (``judge``).

Each family of OpKinds lives in one package under ``oracles/families/`` behind the ``Family``
interface (``oracles.family``), listed once in ``oracles.table``.

Public API (used by ``judge``):

- ``get(op_kind) -> OpDef`` and ``op_kinds()``: the table.
- ``family_of(op_kind) -> Family`` and ``all_families()``: the family hooks the harness calls.
- ``semantic_defaults(op_kind) -> dict[str, str] | None``: the OpKind's default rules.
- ``evaluate(op_kind, inputs, params, out_dtypes, rules) -> list[OracleOutput]``.
- ``shape_rules() -> dict[str, (lo, hi)]`` and ``output_shape(rule, shapes, params)``: the output
  shape rules the families define (``shape_rule: matmul(lhs, rhs)``).
- ``example_params(op_kind, shape) -> dict | None``: op params of a hand-built call.

>>> import oracles
>>> oracles.family_of("SumReduce").name
'reductions'
"""

from __future__ import annotations

from oracles.family import Budget, Family
from oracles.opdef import OpDef
from oracles.output import OracleOutput

__all__ = ["Budget", "Family", "OpDef", "OracleOutput", "all_families", "evaluate", "example_params",
           "family_of", "get", "op_kinds", "output_shape", "semantic_defaults", "shape_rules"]


def get(op_kind: str) -> OpDef:
    from oracles.table import table

    try:
        return table()[op_kind]
    except KeyError:
        raise KeyError(f"the oracle has no definition for OpKind {op_kind!r}") from None


def op_kinds() -> list[str]:
    from oracles.table import table

    return sorted(table())


def family_of(op_kind: str) -> Family:
    """The family ``op_kind`` belongs to."""
    from oracles.table import family_table

    try:
        return family_table()[op_kind]
    except KeyError:
        raise KeyError(f"the oracle has no definition for OpKind {op_kind!r}") from None


def all_families() -> tuple[Family, ...]:
    """Every registered family (``oracles.families`` is the package that holds them)."""
    from oracles.table import families

    return families()


def semantic_defaults(op_kind: str | None) -> dict[str, str] | None:
    from oracles.table import table

    opdef = table().get(op_kind or "")
    return dict(opdef.defaults) if opdef is not None else None


def evaluate(op_kind, inputs, params, out_dtypes, rules):
    """Correctly rounded outputs of ``op_kind`` (see ``OpDef.evaluate``)."""
    return get(op_kind).evaluate(inputs, params, out_dtypes, rules)


def shape_rules() -> dict[str, tuple[int, int | None]]:
    """The output shape rules the families define: name -> (fewest, most operand names; most
    None: any number)."""
    from oracles.table import shape_rules as rules

    return {name: rule.arity for name, rule in rules().items()}


def output_shape(rule: str, shapes, params) -> tuple[int, ...]:
    """The output shape family-defined shape rule ``rule`` gives for the operands it names."""
    from oracles.table import shape_rules as rules

    return tuple(rules()[rule].shape(shapes, params))


def example_params(op_kind: str, shape: tuple[int, ...]) -> dict | None:
    """Op params of a hand-built call of ``op_kind`` on a primary operand of ``shape``; None
    where its family ties shapes and params together (no call can be built by hand)."""
    family = family_of(op_kind)
    if family.example_params is None:
        return None
    return dict(family.example_params(get(op_kind), shape))
