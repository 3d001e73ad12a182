"""The ``return`` clause of a block: outputs with their dtype rule, shape rule and aliasing."""

from __future__ import annotations

import re

from judge.contracts.model import DtypeRule, OutputSpec, ShapeRule
from judge.contracts.reader import BlockReader, operand_names
from numerics.formats import FORMATS

REDUCE_BY = ("dims", "output_shape")
# The shape rules of the format itself, with how many operand names each takes (lo, hi; hi None:
# any number). The families define more (``self.shape_rules``, handed in by the loader's caller).
BUILT_IN_SHAPE_RULES: dict[str, tuple[int, int | None]] = {
    "same_as": (1, 1),
    "broadcast": (2, None),
    "reduce": (2, 3),
}

_CALL = re.compile(r"^([a-z_]+)\(([^()]*)\)$")


class ReturnReader(BlockReader):
    """The ``return`` clause: each output's spec."""

    def _outputs(self, ret, inputs, op_params, registrable) -> list[OutputSpec]:
        path = ("return", "outputs")
        items = self._operands(ret, path, registrable, "output")
        if items is None:
            return []
        input_names = [i.name for i in inputs]
        accept = self.tree.get("accept")
        declared = accept.get("inputs") if isinstance(accept, dict) else None
        declared_inputs = set(operand_names(declared))
        known_inputs = set(input_names) | declared_inputs
        # Without declared inputs there is nothing to check references against: the missing
        # accept clause is the one error to report, not every rule that names an operand.
        self._check_refs = bool(declared_inputs)
        fields = {f.name for f in op_params.fields}
        outs: list[OutputSpec] = []
        for opath, item, name in self._each_operand(items, path, "output"):
            dtype_rule = self._dtype_rule(item, opath, known_inputs)
            shape_rule = self._shape_rule(item, opath, known_inputs, fields)
            layout_guarantee = self._get(item, opath, "layout_guarantee", (str,), what="a string")
            aliasing = self._aliasing(item, opath, known_inputs)
            if None in (name, dtype_rule, shape_rule, aliasing):
                continue
            outs.append(OutputSpec(name, dtype_rule, shape_rule, layout_guarantee, aliasing,
                                   self.f.line(opath)))
        return outs

    def _call(self, item, opath, key, what):
        """The rule text at ``key`` (required) and its ``name(args)`` match (None if it is not
        one); (None, None) when it is missing."""
        text = self._get(item, opath, key, (str,), required=True, what=what)
        return (None, None) if text is None else (text, _CALL.match(text.strip()))

    def _dtype_rule(self, item, opath, inputs) -> DtypeRule | None:
        path = opath + ("dtype_rule",)
        text, match = self._call(item, opath, "dtype_rule", "passthrough(x) or fixed(DTYPE)")
        if text is None:
            return None
        if match and match.group(1) == "passthrough":
            ref = match.group(2).strip()
            if ref not in inputs and self._check_refs:
                self.f.error(path, f"passthrough({ref}) names an unknown operand "
                                   f"(inputs: {', '.join(sorted(map(str, inputs))) or 'none'})")
                return None
            return DtypeRule("passthrough", ref=ref)
        if match and match.group(1) == "fixed":
            dtype = match.group(2).strip()
            if dtype not in FORMATS:
                self.f.error(path, f"fixed({dtype}): unknown dtype (known: {', '.join(FORMATS)})")
                return None
            return DtypeRule("fixed", dtype=dtype)
        self.f.error(path, f"{text!r} is not a dtype rule (use passthrough(x) or fixed(DTYPE))")
        return None

    def _shape_rule(self, item, opath, inputs, fields) -> ShapeRule | None:
        path = opath + ("shape_rule",)
        text, match = self._call(item, opath, "shape_rule",
                                 "same_as(x), broadcast(a, b) or reduce(x, dims, keepdim)")
        if text is None:
            return None
        args = [a.strip() for a in match.group(2).split(",")] if match else []
        kind = match.group(1) if match else None
        shapes = {**BUILT_IN_SHAPE_RULES, **self.shape_rules}
        if kind not in shapes or not all(args):
            self.f.error(path, f"{text!r} is not a shape rule (use same_as(x), broadcast(a, b[, c]),"
                               " reduce(input, dims|output_shape, keepdim) or one of "
                               f"{', '.join(f'{k}(...)' for k in self.shape_rules)})")
            return None
        lo, hi = shapes[kind]
        if len(args) < lo or (hi is not None and len(args) > hi):
            self.f.error(path, f"{kind}() takes {lo}{'' if hi == lo else '..' + str(hi or 'n')} "
                               f"arguments, got {len(args)} in {text!r}")
            return None
        refs = args if kind != "reduce" else args[:1]
        for ref in refs:
            if ref not in inputs and self._check_refs:
                self.f.error(path, f"{text!r} names an unknown operand {ref!r} "
                                   f"(inputs: {', '.join(sorted(map(str, inputs))) or 'none'})")
                return None
        if kind != "reduce":
            return ShapeRule(kind, tuple(refs))
        if args[1] not in REDUCE_BY:
            self.f.error(path, f"reduce(...) reduces by {args[1]!r}: expected dims or "
                               "output_shape")
            return None
        if args[1] not in fields:
            self.f.warn(path, f"reduce(...) reduces by {args[1]!r} but op_params has no such "
                              "field")
        keepdim = args[2] if len(args) == 3 else None
        return ShapeRule("reduce", tuple(refs), reduce_by=args[1], keepdim=keepdim)

    def _aliasing(self, item, opath, inputs) -> str | None:
        value = item.get("aliasing", "none")
        if value == "none":
            return "none"
        match = _CALL.match(str(value).strip())
        if match and match.group(1) == "in_place" and (
                match.group(2).strip() in inputs or not self._check_refs):
            return match.group(2).strip()
        self.f.error(opath + ("aliasing",),
                     f"{value!r} is not an aliasing rule (use none or in_place(<input name>))")
        return None
