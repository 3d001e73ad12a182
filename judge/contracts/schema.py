"""The FKC key schema (SPEC §3): which keys each mapping admits, in their canonical order.

The schema serves two purposes: it recovers nesting in the flattened spelling (each key belongs
to the innermost open mapping that admits it) and it fixes the key order of the normalised tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Node:
    """One schema node.

    kind: "map" | "list" | "leaf". ``keys``: the known keys of a map, in canonical order.
    ``entry``: schema of any other key of an open map (``op_params.fields``); in the flattened
    spelling such a key is admitted only with a flow-mapping value. ``item``: list item schema.
    """

    kind: str
    keys: Mapping[str, Node] = field(default_factory=dict)
    entry: Node | None = None
    item: Node | None = None

    @property
    def is_map(self) -> bool:
        return self.kind == "map"

    @property
    def is_list(self) -> bool:
        return self.kind == "list"

    def child(self, key: str) -> Node | None:
        """Schema of ``key`` in this map, or None if the map does not know it."""
        node = self.keys.get(key)
        return node if node is not None else self.entry

    def admits(self, key: str, value: object, *, flattened: bool) -> bool:
        if self.kind != "map":
            return False
        if key in self.keys:
            return True
        if self.entry is None:
            return False
        return isinstance(value, dict) or not flattened


LEAF = Node("leaf")


def _map(*keys: str, **nested: Node) -> Node:
    ordered: dict[str, Node] = {}
    for key in keys:
        ordered[key] = nested.get(key, LEAF)
    return Node("map", keys=ordered)


def _list(item: Node) -> Node:
    return Node("list", item=item)


LAYOUT_FLAGS = ("contiguous", "strided", "broadcast_stride0", "start_offset", "reverse_strides")
LAYOUT = _map(*LAYOUT_FLAGS)
PARAM_FIELD = _map("kind", "constraint", "note")
FIELDS = Node("map", entry=PARAM_FIELD)
INPUT = _map("name", "dtypes", "layout", "rank", "shape_constraint", layout=LAYOUT)
OP_PARAMS = _map("variant", "fields", fields=FIELDS)
VALIDATION = _map("kind", "input", "axis_of", "expr", "param", "note")
ACCEPT = _map("inputs", "op_params", "validations", inputs=_list(INPUT), op_params=OP_PARAMS,
              validations=_list(VALIDATION))
OUTPUT = _map("name", "dtype_rule", "shape_rule", "layout_guarantee", "aliasing")
RETURN = _map("outputs", outputs=_list(OUTPUT))
FAST_PATH = _map("when", "class", "note")
CAPS = _map(
    "awkward_layout_strategy", "fast_paths", "in_place", "alignment_bytes",
    "access_granularity_bits", fast_paths=_list(FAST_PATH),
)
MEMORY = _map("device_bytes", "host_bytes", "disk_bytes")
COST = _map("provenance", "class", "flops", "bytes_moved", "overhead_ns", "memory", memory=MEMORY)
PRECISION = _map(
    "bit_stable_on_same_hardware", "max_ulp", "max_relative", "max_absolute", "audited", "notes",
    "batch_invariant",
)
SEMANTICS = _map("nan", "ties", "rounding", "remainder", "zeros", "init", "order", "overflow")
BLOCK = _map(
    "kernel", "registrable", "op_kind", "blurb", "backend", "kernel_source", "entry_point",
    "kernel_revision_hash", "accept", "return", "caps", "cost", "precision", "determinism",
    "semantics",
    accept=ACCEPT, caps=CAPS, cost=COST, precision=PRECISION, semantics=SEMANTICS,
    **{"return": RETURN},
)
PROVIDER = _map("name", "backend", "kernel_source", "link_registry", "revision_base")
FRONT_MATTER = _map("fkc_version", "provider", provider=PROVIDER)
