"""Test helpers: where the seed contracts live, and writing a block tree in indented FKC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# Two small valid blocks in the flattened spelling; tests mutate one line of them.
LAYOUT_C = ("{ contiguous: required, strided: rejected, broadcast_stride0: rejected, "
            "start_offset: rejected, reverse_strides: rejected }")

REDUCE = f"""
kernel: sum_reduce_cpu
op_kind: SumReduce
blurb: "Per-axis sum."
backend: Cpu
kernel_revision_hash: auto
accept:
inputs:
- name: input
dtypes: [F32, F64]
layout: {LAYOUT_C}
rank: any
op_params:
variant: Reduce
fields:
dims: {{ kind: "Vec<usize>", constraint: "sorted ascending, unique, each in 0..input_rank" }}
keepdim: {{ kind: bool }}
return:
outputs:
- name: out
dtype_rule: passthrough(input)
shape_rule: reduce(input, dims, keepdim)
layout_guarantee: contiguous
aliasing: none
cost:
flops: "n_in"
precision:
bit_stable_on_same_hardware: true
max_ulp: ~
determinism: same_hardware_bitwise
"""

ADD = f"""
kernel: add_cpu
op_kind: AddElementwise
backend: Cpu
accept:
inputs:
- name: lhs
dtypes: [F32]
layout: {LAYOUT_C}
rank: any
shape_constraint: broadcast_to=rhs
- name: rhs
dtypes: [F32]
layout: {LAYOUT_C}
rank: any
shape_constraint: broadcast_to=lhs
op_params: {{ variant: None }}
return:
outputs:
- name: out
dtype_rule: passthrough(lhs)
shape_rule: broadcast(lhs, rhs)
determinism: bitwise
"""


SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"


def seeds_dir() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"seed contracts not present at {SEEDS} (they live outside the repository)")
    return SEEDS


def _scalar(value) -> str:
    # JSON scalars and flow collections are valid YAML flow text.
    return json.dumps(value, ensure_ascii=False)


def indented_lines(tree: dict, indent: int = 0, *, dash_under_key: bool = False,
                   flow_leaves: bool = True) -> list[str]:
    """The tree as properly indented FKC.

    ``dash_under_key``: list items at the key's own column (``inputs:\\n- name: a``) instead of
    two deeper. ``flow_leaves``: flow mappings stay flow (``layout: {...}``); otherwise every
    mapping is written in block style.
    """
    pad = " " * indent
    out: list[str] = []
    for key, value in tree.items():
        block_map = isinstance(value, dict) and value and (not flow_leaves or _has_nested(value))
        if block_map or (isinstance(value, dict) and value and not flow_leaves):
            out.append(f"{pad}{key}:")
            out += indented_lines(value, indent + 2, dash_under_key=dash_under_key,
                                  flow_leaves=flow_leaves)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out.append(f"{pad}{key}:")
            dash = indent if dash_under_key else indent + 2
            for item in value:
                sub = indented_lines(item, dash + 2, dash_under_key=dash_under_key,
                                     flow_leaves=flow_leaves)
                out.append(" " * dash + "- " + sub[0].lstrip())
                out += sub[1:]
        else:
            out.append(f"{pad}{key}: {_scalar(value)}")
    return out


def _has_nested(mapping: dict) -> bool:
    return any(isinstance(v, (dict, list)) and v for v in mapping.values()) or not mapping


def fkc_file(*blocks: str, front: str = "") -> str:
    """A contract file around the given block texts."""
    parts = [f"---\n{front.strip()}\n---\n" if front else "", "# Contracts\n"]
    for i, block in enumerate(blocks):
        parts.append(f"## block {i}\nProse.\n```fkc\n{block.strip()}\n```\n")
    return "\n".join(parts)
