"""The pure-Python reference oracle (SPEC §6): one semantic definition per OpKind.

Ground truth never calls the numeric kernels under judgement (numpy ufuncs, torch, cupy): values
are computed exactly (``fractions``) or with ``mpmath`` at sufficient precision, then rounded
correctly into the output format. ``oracles`` never imports ``backends``.

Public API (used by ``judge``):

- ``get(op_kind) -> OpDef`` and ``op_kinds()``: the table (``oracles.table``).
- ``semantic_defaults(op_kind) -> dict[str, str] | None``: the OpKind's default rules.
- ``evaluate(op_kind, inputs, params, out_dtypes, rules) -> list[OracleOutput]``.
"""

from __future__ import annotations

from oracles.opdef import OpDef
from oracles.output import OracleOutput

__all__ = ["OpDef", "OracleOutput", "evaluate", "get", "op_kinds", "semantic_defaults"]


def get(op_kind: str) -> OpDef:
    from oracles.table import TABLE

    try:
        return TABLE[op_kind]
    except KeyError:
        raise KeyError(f"the oracle has no definition for OpKind {op_kind!r}") from None


def op_kinds() -> list[str]:
    from oracles.table import TABLE

    return sorted(TABLE)


def semantic_defaults(op_kind: str | None) -> dict[str, str] | None:
    from oracles.table import TABLE

    opdef = TABLE.get(op_kind or "")
    return dict(opdef.defaults) if opdef is not None else None


def evaluate(op_kind, inputs, params, out_dtypes, rules):
    """Correctly rounded outputs of ``op_kind`` (see ``OpDef.evaluate``)."""
    return get(op_kind).evaluate(inputs, params, out_dtypes, rules)
