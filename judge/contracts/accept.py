"""The ``accept`` clause of a block: inputs (dtypes, layout flags, rank, shape constraint) and
op params."""

from __future__ import annotations

import re

from judge.contracts.model import (
    InputSpec,
    Layout,
    OpParams,
    ParamField,
    RankRange,
    ShapeConstraint,
)
from judge.contracts.params import parse_constraint, unknown_parts
from judge.contracts.reader import BlockReader, operand_names
from judge.contracts.schema import LAYOUT_FLAGS
from numerics.formats import FORMATS

# The seeds name the ``output_shape`` op param ``out_shape`` in a shape constraint.
PARAM_ALIASES = {"out_shape": "output_shape", "in_shape": "input_shape"}
PARAM_KINDS = ("Vec<usize>", "Vec<u8>", "bool", "f32", "f64", "i32", "i64", "u32", "usize")

_RANK_RANGE = re.compile(r"^(\d+)\.\.=(\d+)$")
_SHAPE_REF = re.compile(r"^(same_as|broadcast_to)=([A-Za-z_]\w*)$")


class AcceptReader(BlockReader):
    """The ``accept`` clause: each input's spec and the op-param fields."""

    def _inputs(self, accept, registrable) -> list[InputSpec]:
        path = ("accept", "inputs")
        names = self._referable_names(accept)
        items = self._operands(accept, path, registrable, "input")
        if items is None:
            return []
        specs: list[InputSpec] = []
        seen: set[str] = set()
        for ipath, item, name in self._each_operand(items, path, "input"):
            if name is not None and name in seen:
                self.f.error(ipath + ("name",), f"duplicate input name {name!r}")
            seen.add(name)
            dtypes = self._dtypes(item, ipath)
            layout = self._layout(item, ipath)
            rank = self._rank(item, ipath)
            shape = None
            if item.get("shape_constraint") is not None:
                shape = self._shape_constraint(item, ipath, names)
                if shape is None:
                    continue
            if name is None or dtypes is None or layout is None or rank is None:
                continue
            specs.append(InputSpec(name, dtypes, layout, rank, shape, self.f.line(ipath)))
        return specs

    def _dtypes(self, item, ipath) -> tuple[str, ...] | None:
        value = item.get("dtypes")
        if value is None:
            self.f.error(ipath + ("dtypes",), "missing (expected a list such as [F32, F64])")
            return None
        values = value if isinstance(value, list) else [value]
        out: list[str] = []
        ok = bool(values)
        if not values:
            self.f.error(ipath + ("dtypes",), "empty dtype list")
        for i, dtype in enumerate(values):
            if not isinstance(dtype, str) or dtype not in FORMATS:
                sub = ipath + ("dtypes", i) if isinstance(value, list) else ipath + ("dtypes",)
                self.f.error(sub, f"unknown dtype {dtype!r} (known: {', '.join(FORMATS)})")
                ok = False
            else:
                out.append(dtype)
        return tuple(out) if ok else None

    def _layout(self, item, ipath) -> Layout | None:
        lpath = ipath + ("layout",)
        value = item.get("layout")
        if not isinstance(value, dict):
            self.f.error(lpath, f"expected the five layout flags {{{', '.join(LAYOUT_FLAGS)}}}, "
                                f"got {value!r}")
            return None
        flags: dict[str, bool] = {}
        for flag in LAYOUT_FLAGS:
            allowed = ("required", "accepted") if flag == "contiguous" else ("accepted", "rejected")
            got = value.get(flag)
            if got is None:
                self.f.error(lpath + (flag,), f"missing layout flag (expected {' or '.join(allowed)})")
            elif got not in allowed:
                self.f.error(lpath + (flag,), f"{got!r} is not a {flag} value "
                                              f"(use {' or '.join(allowed)})")
            else:
                flags[flag] = got == ("required" if flag == "contiguous" else "accepted")
        if len(flags) != len(LAYOUT_FLAGS):
            return None
        return Layout(flags["contiguous"], flags["strided"], flags["broadcast_stride0"],
                      flags["start_offset"], flags["reverse_strides"])

    def _rank(self, item, ipath) -> RankRange | None:
        value = item.get("rank", "any")
        if value == "any":
            return RankRange(0, None)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return RankRange(value, value)
        match = _RANK_RANGE.match(str(value)) if isinstance(value, str) else None
        if match and int(match.group(1)) <= int(match.group(2)):
            return RankRange(int(match.group(1)), int(match.group(2)))
        self.f.error(ipath + ("rank",), f"{value!r} is not a rank (use any, N or A..=B)")
        return None

    def _op_params(self, accept) -> OpParams:
        path = ("accept", "op_params")
        value = accept.get("op_params")
        if value is None:
            return OpParams(None)
        if not isinstance(value, dict):
            self.f.error(path, f"expected {{ variant: None }} or variant + fields, got {value!r}")
            return OpParams(None)
        variant = value.get("variant")
        if variant is not None and not isinstance(variant, str):
            self.f.error(path + ("variant",), f"expected a variant name, got {variant!r}")
        variant = None if variant in (None, "None") else variant
        fields_value = value.get("fields") or {}
        if not isinstance(fields_value, dict):
            self.f.error(path + ("fields",), f"expected a mapping of fields, got {fields_value!r}")
            return OpParams(variant)
        if variant is None and fields_value:
            self.f.error(path + ("fields",), "fields declared but variant is None")
        out: list[ParamField] = []
        for name, spec in fields_value.items():
            fpath = path + ("fields", name)
            if not isinstance(spec, dict):
                self.f.error(fpath, f"expected {{ kind: ..., constraint: ..., note: ... }}, "
                                    f"got {spec!r}")
                continue
            kind = self._get(spec, fpath, "kind", (str,), required=True, what="a field kind")
            if kind is not None and kind not in PARAM_KINDS:
                self.f.warn(fpath + ("kind",), f"field kind {kind!r} is not one the Judge "
                                               f"generates values for ({', '.join(PARAM_KINDS)})")
            note = self._get(spec, fpath, "note", (str,), what="a string")
            constraint = None
            if spec.get("constraint") is not None:
                constraint = parse_constraint(str(spec["constraint"]))
                for part in unknown_parts(constraint):
                    self.f.warn(fpath + ("constraint",),
                                f"constraint {part.text!r} is not in the vocabulary; it is not "
                                "enforced and the OpKind's own generator decides")
                for part in constraint.each():
                    if part.kind == "ge_field" and part.value not in fields_value:
                        self.f.warn(fpath + ("constraint",),
                                    f"'>= {part.value}' names no field of this op_params")
            out.append(ParamField(str(name), kind or "", constraint, note))
        return OpParams(variant, tuple(out))

    def _referable_names(self, accept) -> set[str]:
        """What ``same_as=X`` / ``broadcast_to=X`` may name: inputs, outputs and op params, as
        declared (so an operand that fails to parse does not cascade into more errors)."""
        ret = self.tree.get("return")
        params = accept.get("op_params")
        fields = params.get("fields") if isinstance(params, dict) else None
        names = set(operand_names(accept.get("inputs")))
        names |= set(operand_names(ret.get("outputs") if isinstance(ret, dict) else None))
        names |= {k for k in fields if isinstance(k, str)} if isinstance(fields, dict) else set()
        return names

    def _shape_constraint(self, item, ipath, names) -> ShapeConstraint | None:
        path = ipath + ("shape_constraint",)
        text = str(item["shape_constraint"])
        match = _SHAPE_REF.match(text.strip())
        if match is None:
            return ShapeConstraint("free", None, text)
        kind, ref = match.groups()
        if ref not in names:
            ref = PARAM_ALIASES.get(ref, ref)
        if ref not in names:
            self.f.error(path, f"{kind}={match.group(2)} names an unknown operand "
                               f"(known: {', '.join(sorted(names)) or 'none'})")
            return None
        return ShapeConstraint(kind, ref, text)
