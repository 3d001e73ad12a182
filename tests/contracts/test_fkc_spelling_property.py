"""Any schema-shaped tree, written flattened or indented, parses back to itself."""

from __future__ import annotations

import json
import string

from fkc_testing import indented_lines
from hypothesis import given
from hypothesis import strategies as st

from judge.contracts.blocktree import parse_block
from judge.contracts.build import normalise
from judge.contracts.schema import BLOCK, Node

_NAMES = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8).filter(
    lambda s: s[0] != "_")
_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 1000),
    st.text(alphabet=string.ascii_letters + string.digits + " .,;:#=()[]{}<>-_'\"*/+", max_size=14),
    st.lists(st.sampled_from(["F32", "F64", "BF16"]), max_size=3),
)


def tree_of(node: Node, *, nonempty: bool = False) -> st.SearchStrategy:
    if node.is_map and node.entry is not None:  # op_params.fields: flow entries
        return st.dictionaries(_NAMES, tree_of(node.entry), max_size=3)
    if node.is_map:
        optional = {key: tree_of(child) for key, child in node.keys.items()}
        maps = st.fixed_dictionaries({}, optional=optional)
        return maps.filter(bool) if nonempty else maps
    if node.is_list:
        return st.lists(tree_of(node.item, nonempty=True), max_size=3)
    return _LEAF


def flattened_lines(tree: dict, node: Node) -> list[str]:
    out: list[str] = []
    for key, value in tree.items():
        child = node.child(key)
        if child.is_map and node.entry is None:
            out.append(f"{key}:")
            out += flattened_lines(value, child)
        elif child.is_list and value:
            out.append(f"{key}:")
            for item in value:
                lines = flattened_lines(item, child.item)
                out += ["- " + lines[0], *lines[1:]]
        else:
            out.append(f"{key}: {json.dumps(value)}")
    return out


def parsed(lines: list[str]) -> dict:
    return normalise(parse_block(tuple(lines), 1, BLOCK).tree, BLOCK, (), None)


@given(tree_of(BLOCK))
def test_both_spellings_round_trip(tree):
    expected = normalise(tree, BLOCK, (), None)
    assert parsed(flattened_lines(expected, BLOCK)) == expected
    assert parsed(indented_lines(expected)) == expected
    assert parsed(indented_lines(expected, dash_under_key=True, flow_leaves=False)) == expected
