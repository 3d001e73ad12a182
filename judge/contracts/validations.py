"""``accept.validations``: the refusals a kernel's wrapper states (SPEC §4 "Error inputs").

Each entry is a mapping with a ``kind`` and the fields that kind needs::

    validations:
      - { kind: operand_count }                                  # implicit; may be stated
      - { kind: dtype, input: weight }                           # implicit from dtypes; may be stated
      - { kind: divisible, expr: "k % block_size == 0" }
      - { kind: index_range, input: indices, axis_of: source }
      - { kind: param_length, param: input_dim_sizes }           # len(param) == operand count

A divisibility names op params or dimensions (``dim(x, -1)``) on either side of ``%``.
"""

from __future__ import annotations

import re

from judge.contracts.model import VALIDATION_KINDS, Validation
from judge.contracts.reader import BlockReader

# kind -> (required fields, allowed fields)
FIELDS = {
    "operand_count": ((), ()),
    "dtype": (("input",), ("input",)),
    "divisible": (("expr",), ("expr",)),
    "index_range": (("input", "axis_of"), ("input", "axis_of")),
    "param_length": (("param",), ("param",)),
}
_TERM = r"(?:[A-Za-z_]\w*|\d+|dim\(\s*[A-Za-z_]\w*\s*,\s*-?\d+\s*\))"
DIVISIBLE = re.compile(rf"^\s*({_TERM})\s*%\s*({_TERM})\s*==\s*0\s*$")
DIM = re.compile(r"^dim\(\s*([A-Za-z_]\w*)\s*,\s*(-?\d+)\s*\)$")


def divisible_terms(expr: str) -> tuple[str, str] | None:
    """(dividend, divisor) of ``a % b == 0``, or None where ``expr`` is not one."""
    match = DIVISIBLE.match(expr)
    return (match.group(1), match.group(2)) if match else None


class ValidationsReader(BlockReader):
    """Reads ``accept.validations``; every error names the entry's line and field."""

    def _validations(self, accept, inputs) -> tuple[Validation, ...]:
        path = ("accept", "validations")
        value = accept.get("validations") if isinstance(accept, dict) else None
        if value is None:
            return ()
        if not isinstance(value, list):
            self.f.error(path, f"expected a list of {{ kind: ... }} entries, got {value!r}")
            return ()
        names = {s.name for s in inputs}
        params = self._param_names(accept)
        out = []
        for i, entry in enumerate(value):
            found = self._validation(path + (i,), entry, names, params)
            if found is not None:
                out.append(found)
        return tuple(out)

    def _param_names(self, accept) -> set[str]:
        params = accept.get("op_params")
        fields = params.get("fields") if isinstance(params, dict) else None
        return {k for k in fields if isinstance(k, str)} if isinstance(fields, dict) else set()

    def _validation(self, vpath, entry, names, params) -> Validation | None:
        if not isinstance(entry, dict):
            self.f.error(vpath, f"expected {{ kind: ... }}, got {entry!r}")
            return None
        kind = self._get(entry, vpath, "kind", (str,), required=True,
                         what=f"a validation kind ({', '.join(VALIDATION_KINDS)})")
        if kind is None:
            return None
        if kind not in FIELDS:
            self.f.error(vpath + ("kind",), f"{kind!r} is not a validation kind "
                                            f"(known: {', '.join(VALIDATION_KINDS)})")
            return None
        required, allowed = FIELDS[kind]
        ok = True
        for key in entry:
            if key not in (*allowed, "kind", "note"):
                self.f.error(vpath + (key,), f"a {kind} validation takes no {key!r} "
                                             f"(it takes: {', '.join((*allowed, 'note')) })")
                ok = False
        for key in required:
            if self._get(entry, vpath, key, (str,), required=True, what="a string") is None:
                ok = False
        for key in ("input", "axis_of"):
            ref = entry.get(key)
            if isinstance(ref, str) and ref not in names:
                self.f.error(vpath + (key,), f"{ref!r} names no input of this block "
                                             f"(inputs: {', '.join(sorted(names)) or 'none'})")
                ok = False
        if kind == "param_length" and isinstance(entry.get("param"), str) and entry["param"] not in params:
            self.f.error(vpath + ("param",), f"{entry['param']!r} names no op_params field "
                                             f"(fields: {', '.join(sorted(params)) or 'none'})")
            ok = False
        if kind == "divisible" and isinstance(entry.get("expr"), str):
            ok = self._divisible(vpath, entry["expr"], names, params) and ok
        note = entry.get("note")
        if note is not None and not isinstance(note, str):
            self.f.error(vpath + ("note",), f"expected a string, got {note!r}")
            ok = False
        if not ok:
            return None
        return Validation(kind, entry.get("input"), entry.get("axis_of"), entry.get("expr"),
                          entry.get("param"), note, True, self.f.line(vpath))

    def _divisible(self, vpath, expr, names, params) -> bool:
        terms = divisible_terms(expr)
        if terms is None:
            self.f.error(vpath + ("expr",), f"{expr!r} is not a divisibility (write it as "
                                            "'a % b == 0', a and b op params, dim(input, axis) "
                                            "or integers)")
            return False
        ok = True
        for term in terms:
            dim = DIM.match(term)
            if dim is not None and dim.group(1) not in names:
                self.f.error(vpath + ("expr",), f"{term!r} names no input of this block")
                ok = False
            elif dim is None and not term.isdigit() and term not in params:
                self.f.warn(vpath + ("expr",), f"{term!r} is no op_params field of this block: "
                                               "the OpKind's family must know it")
        return ok
