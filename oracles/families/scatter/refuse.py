"""The scatter family's error inputs (``Family.break_rule``): an index out of the base axis."""

from __future__ import annotations

from oracles.breaking import index_out_of_range


def _axis_length(op_kind: str, params: dict) -> int:
    if op_kind == "ScatterAdd":
        return int(params["base_shape"][int(params["dim"])])
    return int(params["base_dim_size"])


def break_rule(contract, opdef, rule, values, params, rng):
    """An index at or past the base axis' length in the ``indices`` operand the rule names."""
    names = [s.name for s in contract.inputs]
    if rule.kind != "index_range" or rule.input not in names:
        return None
    at = names.index(rule.input)
    broken = index_out_of_range(values[at], _axis_length(opdef.op_kind, params), rng)
    if broken is None:
        return None
    return tuple(broken if i == at else v for i, v in enumerate(values)), dict(params)
