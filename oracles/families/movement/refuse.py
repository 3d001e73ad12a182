"""The movement family's error inputs (``Family.break_rule``): an index out of the source axis."""

from __future__ import annotations

from oracles.breaking import index_out_of_range


def _axis_length(op_kind: str, params: dict) -> int | None:
    if op_kind == "IndexSelect":
        return int(params["source_dim_size"])
    if op_kind == "Gather":
        return int(params["source_shape"][int(params["dim"])])
    return None


def break_rule(contract, opdef, rule, values, params, rng):
    """An index at or past the source axis' length in the ``indices`` operand the rule names."""
    if rule.kind != "index_range":
        return None
    bound = _axis_length(opdef.op_kind, params)
    names = [s.name for s in contract.inputs]
    if bound is None or rule.input not in names:
        return None
    at = names.index(rule.input)
    broken = index_out_of_range(values[at], bound, rng)
    if broken is None:
        return None
    return tuple(broken if i == at else v for i, v in enumerate(values)), dict(params)
