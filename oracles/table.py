"""The families, registered in one list, and the oracle table built from them: one ``OpDef`` per
OpKind, each with the family it belongs to.

A new family is a package under ``oracles/families/`` exporting ``FAMILY``; listing it in
``_families`` is the only other edit. The table is built on the first lookup, not on import.
"""

from __future__ import annotations

from functools import cache

from oracles.family import Family, OutputShapeRule
from oracles.opdef import OpDef


def _families() -> tuple[Family, ...]:
    from oracles.families import (
        attention,
        backward,
        cast,
        conv,
        cumsum,
        elementwise,
        fused,
        inplace,
        lastdim,
        matmul,
        movement,
        pad,
        quant,
        reductions,
        rope,
        scans,
        scatter,
        slices,
    )

    return (
        elementwise.FAMILY,
        reductions.FAMILY,
        matmul.FAMILY,
        cumsum.FAMILY,
        cast.FAMILY,
        movement.FAMILY,
        lastdim.FAMILY,
        backward.FAMILY,
        quant.FAMILY,
        rope.FAMILY,
        conv.FAMILY,
        pad.FAMILY,
        attention.FAMILY,
        scans.FAMILY,
        fused.FAMILY,
        scatter.FAMILY,
        inplace.FAMILY,
        slices.FAMILY,
    )


@cache
def families() -> tuple[Family, ...]:
    """Every registered family, in registration order."""
    found = _families()
    names = [f.name for f in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two families share a name: {names}")
    return found


@cache
def _index() -> tuple[dict[str, OpDef], dict[str, Family], dict[str, OutputShapeRule]]:
    """(OpKind -> OpDef, OpKind -> its family, shape rule name -> rule); an OpKind or a shape
    rule two families claim is an error here, not a silent override."""
    table: dict[str, OpDef] = {}
    family_of: dict[str, Family] = {}
    rules: dict[str, OutputShapeRule] = {}
    for family in families():
        for row in family.rows():
            if row.op_kind in table:
                raise ValueError(f"{row.op_kind} is defined by both {family_of[row.op_kind].name} "
                                 f"and {family.name}")
            table[row.op_kind] = row
            family_of[row.op_kind] = family
        for name, rule in family.shape_rules.items():
            if name in rules:
                raise ValueError(f"shape rule {name}(...) is defined by two families")
            rules[name] = rule
    return table, family_of, rules


def table() -> dict[str, OpDef]:
    """OpKind -> its ``OpDef``."""
    return _index()[0]


def family_table() -> dict[str, Family]:
    """OpKind -> its family."""
    return _index()[1]


def shape_rules() -> dict[str, OutputShapeRule]:
    """The output shape rules the families define, by name."""
    return _index()[2]
