"""Build the typed ``Contract`` of one parsed block, collecting every error and warning.

A block with any error yields no contract (never a half-parsed one); the caller still gets all of
that block's errors, so one ``judge lint`` run shows everything to fix.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from judge.contracts import cost as cost_expr
from judge.contracts.blocktree import ParsedTree
from judge.contracts.errors import ContractError, LintWarning, format_path
from judge.contracts.model import (
    DEVICE_OF_BACKEND,
    SEMANTIC_VALUES,
    Caps,
    Contract,
    Cost,
    CostExpr,
    DtypeRule,
    InputSpec,
    Layout,
    Location,
    OpParams,
    OutputSpec,
    ParamField,
    Precision,
    Provider,
    RankRange,
    ShapeConstraint,
    ShapeRule,
)
from judge.contracts.params import parse_constraint, unknown_parts
from judge.contracts.schema import BLOCK, LAYOUT_FLAGS, Node
from judge.contracts.semantics import derive
from judge.formats import FORMATS

DETERMINISM = ("bitwise", "same_hardware_bitwise", "nondeterministic")
AWKWARD_LAYOUT_STRATEGIES = ("requires_contiguous", "handles_strided")
# The seeds name the ``output_shape`` op param ``out_shape`` in a shape constraint.
PARAM_ALIASES = {"out_shape": "output_shape", "in_shape": "input_shape"}
REDUCE_BY = ("dims", "output_shape")
PARAM_KINDS = ("Vec<usize>", "bool", "f32", "f64", "i32", "i64", "u32", "usize")

#: The OpKind's default semantic rules, or None where the oracle does not define the OpKind
#: (``judge.suite`` hands in ``oracles.semantic_defaults``: this package never imports it).
DefaultsFor = Callable[[str], Mapping[str, str] | None]

_RANK_RANGE = re.compile(r"^(\d+)\.\.=(\d+)$")
_SHAPE_REF = re.compile(r"^(same_as|broadcast_to)=([A-Za-z_]\w*)$")
_CALL = re.compile(r"^([a-z_]+)\(([^()]*)\)$")


@dataclass
class Findings:
    """Where a block's problems are collected, with line lookup by field path."""

    file: str
    kernel: str | None
    lines: Mapping[tuple, int]
    first_line: int
    errors: list[ContractError] = field(default_factory=list)
    warnings: list[LintWarning] = field(default_factory=list)

    def line(self, path: tuple) -> int:
        for cut in range(len(path), 0, -1):
            found = self.lines.get(path[:cut])
            if found is not None:
                return found
        return self.first_line

    def error(self, path: tuple, message: str) -> None:
        self.errors.append(ContractError(self.file, self.line(path), self.kernel,
                                         format_path(path) or None, message))

    def warn(self, path: tuple, message: str) -> None:
        self.warnings.append(LintWarning(self.file, self.line(path), self.kernel,
                                         format_path(path) or None, message))


def normalise(value: Any, node: Node, path: tuple, findings: Findings | None) -> Any:
    """Keys in schema order (unknown keys after, as written; lint warns about them)."""
    if node.kind == "leaf":
        return value
    if node.kind == "map" and isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, child in node.keys.items():
            if key in value:
                out[key] = normalise(value[key], child, path + (key,), findings)
        for key, item in value.items():
            if key in node.keys:
                continue
            if node.entry is not None:
                out[key] = normalise(item, node.entry, path + (key,), findings)
            else:
                if findings is not None:
                    findings.warn(path + (key,), f"unknown key {key!r} (not in the FKC schema; "
                                                 f"kept in the tree, ignored by the Judge)")
                out[key] = item
        return out
    if node.kind == "list" and isinstance(value, list):
        return [normalise(v, node.item or Node("leaf"), path + (i,), findings)
                for i, v in enumerate(value)]
    return value


def revision_hash(tree: Mapping[str, Any], revision_base: str | None) -> str:
    """sha256 (first 16 hex digits) of the normalised tree and the provider's revision base."""
    text = json.dumps(tree, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(f"{text}\n{revision_base or ''}".encode())
    return digest.hexdigest()[:16]


def build_contract(
    parsed: ParsedTree,
    *,
    file: str,
    first_line: int,
    provider: Provider,
    kernel_hint: str | None,
    suite: str = "",
    section: str = "",
    defaults_for: DefaultsFor,
) -> tuple[Contract | None, Findings]:
    raw = dict(parsed.tree)
    kernel = raw.get("kernel")
    findings = Findings(file, kernel if isinstance(kernel, str) else kernel_hint,
                        parsed.lines, first_line)
    # Provider defaults are part of the block's meaning, so they are in the tree (and the hash).
    for key in ("backend", "kernel_source"):
        default = getattr(provider, key)
        if raw.get(key) is None and key not in raw and default is not None:
            raw[key] = default
    tree = normalise(raw, BLOCK, (), findings)
    return _Builder(tree, findings, provider, suite, section, parsed.spelling,
                    defaults_for).build(), findings


class _Builder:
    def __init__(self, tree, findings, provider, suite, section, spelling, defaults_for):
        self.tree = tree
        self.f = findings
        self.provider = provider
        self.suite = suite
        self.section = section
        self.spelling = spelling
        self.defaults_for = defaults_for

    # -- small typed getters ---------------------------------------------------------------

    def _get(self, mapping, path, key, types, *, required=False, what="a value"):
        if not isinstance(mapping, dict) or mapping.get(key) is None:
            if required:
                self.f.error(path + (key,), f"missing (expected {what})")
            return None
        value = mapping[key]
        if isinstance(value, bool) and bool not in types:
            self.f.error(path + (key,), f"expected {what}, got {value!r}")
            return None
        if not isinstance(value, types):
            self.f.error(path + (key,), f"expected {what}, got {value!r}")
            return None
        return value

    def _section(self, key, *, required=False) -> dict:
        value = self.tree.get(key)
        if value is None:
            if required:
                self.f.error((key,), "missing section (a registrable block must declare it)")
            return {}
        if not isinstance(value, dict):
            self.f.error((key,), f"expected a mapping, got {value!r}")
            return {}
        return value

    # -- the block -------------------------------------------------------------------------

    def build(self) -> Contract | None:
        t = self.tree
        kernel = self._get(t, (), "kernel", (str,), required=True, what="the kernel name")
        registrable = self._get(t, (), "registrable", (bool,), what="true or false")
        registrable = True if registrable is None else registrable
        op_kind = self._get(t, (), "op_kind", (str,), required=registrable, what="an OpKind name")
        blurb = self._get(t, (), "blurb", (str,), what="a string")
        backend = self._get(t, (), "backend", (str,), required=True,
                            what="Cpu, Cuda or Vulkan (or a provider.backend default)")
        if backend is not None and backend not in DEVICE_OF_BACKEND:
            self.f.error(("backend",), f"{backend!r} is not a backend (use Cpu, Cuda or Vulkan)")
        kernel_source = self._get(t, (), "kernel_source", (str,), what="a string")
        entry_point = self._get(t, (), "entry_point", (str,), what="a string")
        revision = self._get(t, (), "kernel_revision_hash", (str,), what="auto or a hash")

        accept = self._section("accept", required=registrable)
        ret = self._section("return", required=registrable)
        inputs = self._inputs(accept, registrable)
        op_params = self._op_params(accept)
        outputs = self._outputs(ret, inputs, op_params, registrable)
        caps = self._caps()
        cost = self._cost()
        precision = self._precision()
        determinism = self._determinism(precision, registrable)
        aliased = any(o.aliasing != "none" for o in outputs)
        if caps.in_place != aliased and outputs:
            self.f.warn(("caps", "in_place"),
                        f"caps.in_place is {str(caps.in_place).lower()} but "
                        f"{'an output is' if aliased else 'no output is'} declared in_place(x) "
                        "in return.outputs[].aliasing")
        declared = self._declared_semantics()
        if self.f.errors:
            return None
        if revision in (None, "auto"):
            revision = revision_hash(t, self.provider.revision_base)
        defaults = self.defaults_for(op_kind) if op_kind else None
        if registrable and op_kind and defaults is None:
            self.f.warn(("op_kind",), f"the oracle has no definition for OpKind {op_kind!r}; "
                                      "the Judge cannot run this contract")
        semantics = derive(declared, blurb, precision.notes, defaults)
        location = Location(self.f.file, self.f.line(("kernel",)))
        return Contract(
            kernel=kernel, location=location, registrable=registrable, op_kind=op_kind,
            blurb=blurb, backend=backend, kernel_source=kernel_source, entry_point=entry_point,
            revision=revision, inputs=tuple(inputs), op_params=op_params,
            outputs=tuple(outputs), caps=caps, cost=cost, precision=precision,
            determinism=determinism, semantics=semantics, tree=t, suite=self.suite,
            section=self.section, spelling=self.spelling,
        )

    # -- accept ----------------------------------------------------------------------------

    def _inputs(self, accept, registrable) -> list[InputSpec]:
        path = ("accept", "inputs")
        names = self._referable_names(accept)
        items = accept.get("inputs")
        if items is None:
            if registrable and accept:
                self.f.error(path, "missing (a registrable block declares at least one input)")
            return []
        if not isinstance(items, list) or not items:
            self.f.error(path, f"expected a non-empty list of inputs, got {items!r}")
            return []
        specs: list[InputSpec] = []
        seen: set[str] = set()
        for index, item in enumerate(items):
            ipath = path + (index,)
            if not isinstance(item, dict):
                self.f.error(ipath, f"expected an input mapping (- name: ...), got {item!r}")
                continue
            name = self._get(item, ipath, "name", (str,), required=True, what="an operand name")
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
        names = set(_names(accept.get("inputs")))
        names |= set(_names(ret.get("outputs") if isinstance(ret, dict) else None))
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

    # -- return ----------------------------------------------------------------------------

    def _outputs(self, ret, inputs, op_params, registrable) -> list[OutputSpec]:
        path = ("return", "outputs")
        items = ret.get("outputs")
        if items is None:
            if registrable and ret:
                self.f.error(path, "missing (a registrable block declares at least one output)")
            return []
        if not isinstance(items, list) or not items:
            self.f.error(path, f"expected a non-empty list of outputs, got {items!r}")
            return []
        input_names = [i.name for i in inputs]
        accept = self.tree.get("accept")
        declared = accept.get("inputs") if isinstance(accept, dict) else None
        declared_inputs = set(_names(declared))
        known_inputs = set(input_names) | declared_inputs
        # Without declared inputs there is nothing to check references against: the missing
        # accept clause is the one error to report, not every rule that names an operand.
        self._check_refs = bool(declared_inputs)
        fields = {f.name for f in op_params.fields}
        outs: list[OutputSpec] = []
        for index, item in enumerate(items):
            opath = path + (index,)
            if not isinstance(item, dict):
                self.f.error(opath, f"expected an output mapping (- name: ...), got {item!r}")
                continue
            name = self._get(item, opath, "name", (str,), required=True, what="an operand name")
            dtype_rule = self._dtype_rule(item, opath, known_inputs)
            shape_rule = self._shape_rule(item, opath, known_inputs, fields)
            layout_guarantee = self._get(item, opath, "layout_guarantee", (str,), what="a string")
            aliasing = self._aliasing(item, opath, known_inputs)
            if None in (name, dtype_rule, shape_rule, aliasing):
                continue
            outs.append(OutputSpec(name, dtype_rule, shape_rule, layout_guarantee, aliasing,
                                   self.f.line(opath)))
        return outs

    def _dtype_rule(self, item, opath, inputs) -> DtypeRule | None:
        path = opath + ("dtype_rule",)
        text = self._get(item, opath, "dtype_rule", (str,), required=True,
                         what="passthrough(x) or fixed(DTYPE)")
        if text is None:
            return None
        match = _CALL.match(text.strip())
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
        text = self._get(item, opath, "shape_rule", (str,), required=True,
                         what="same_as(x), broadcast(a, b) or reduce(x, dims, keepdim)")
        if text is None:
            return None
        match = _CALL.match(text.strip())
        args = [a.strip() for a in match.group(2).split(",")] if match else []
        kind = match.group(1) if match else None
        shapes = {"same_as": (1, 1), "broadcast": (2, None), "reduce": (2, 3)}
        if kind not in shapes or not all(args):
            self.f.error(path, f"{text!r} is not a shape rule (use same_as(x), broadcast(a, b[, c])"
                               " or reduce(input, dims|output_shape, keepdim))")
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

    # -- caps, cost, precision, determinism, semantics -------------------------------------

    def _caps(self) -> Caps:
        caps = self._section("caps")
        path = ("caps",)
        strategy = self._get(caps, path, "awkward_layout_strategy", (str,), what="a strategy")
        if strategy is not None and strategy not in AWKWARD_LAYOUT_STRATEGIES:
            self.f.error(path + ("awkward_layout_strategy",),
                         f"{strategy!r} is not a strategy (use "
                         f"{' or '.join(AWKWARD_LAYOUT_STRATEGIES)})")
        fast = caps.get("fast_paths") or []
        if not isinstance(fast, list) or not all(isinstance(x, dict) for x in fast):
            self.f.error(path + ("fast_paths",), f"expected a list of mappings, got {fast!r}")
            fast = []
        in_place = self._get(caps, path, "in_place", (bool,), what="true or false")
        align = self._get(caps, path, "alignment_bytes", (int,), what="an integer")
        gran = self._get(caps, path, "access_granularity_bits", (int,), what="an integer")
        return Caps(strategy, tuple(dict(x) for x in fast), bool(in_place), align, gran)

    def _expr(self, value, path) -> CostExpr | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.f.error(path, f"expected an arithmetic expression, got {value!r}")
            return None
        try:
            return CostExpr(str(value), cost_expr.parse(str(value)))
        except cost_expr.CostSyntaxError as exc:
            self.f.error(path, str(exc))
            return None

    def _cost(self) -> Cost:
        c = self._section("cost")
        path = ("cost",)
        memory_value = c.get("memory") or {}
        memory: dict[str, CostExpr | int] = {}
        if not isinstance(memory_value, dict):
            self.f.error(path + ("memory",), f"expected a mapping of tiers, got {memory_value!r}")
        else:
            for tier, value in memory_value.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    memory[tier] = value
                elif value is not None:
                    expr = self._expr(value, path + ("memory", tier))
                    if expr is not None:
                        memory[tier] = expr
        overhead = self._get(c, path, "overhead_ns", (int, float), what="a number of ns")
        return Cost(
            provenance=self._get(c, path, "provenance", (str,), what="a string"),
            cls=self._get(c, path, "class", (str,), what="a string"),
            flops=self._expr(c.get("flops"), path + ("flops",)),
            bytes_moved=self._expr(c.get("bytes_moved"), path + ("bytes_moved",)),
            overhead_ns=float(overhead) if overhead is not None else None,
            memory=memory,
        )

    def _precision(self) -> Precision:
        p = self._section("precision")
        path = ("precision",)
        max_ulp = self._get(p, path, "max_ulp", (int,), what="a non-negative integer")
        if max_ulp is not None and max_ulp < 0:
            self.f.error(path + ("max_ulp",), f"max_ulp {max_ulp} is negative (expected an "
                                              "integer >= 0)")
        bounds = {}
        for key in ("max_relative", "max_absolute"):
            value = self._get(p, path, key, (int, float), what="a non-negative number")
            if value is not None and (value < 0 or value != value):
                self.f.error(path + (key,), f"{key} {value} is not a non-negative number")
            bounds[key] = float(value) if value is not None else None
        return Precision(
            bit_stable_on_same_hardware=self._get(p, path, "bit_stable_on_same_hardware", (bool,),
                                                  what="true or false"),
            max_ulp=max_ulp,
            max_relative=bounds["max_relative"],
            max_absolute=bounds["max_absolute"],
            audited=self._get(p, path, "audited", (bool,), what="true or false"),
            notes=self._get(p, path, "notes", (str,), what="a string"),
        )

    def _determinism(self, precision: Precision, registrable: bool) -> str:
        value = self.tree.get("determinism")
        if value is None:
            if registrable:
                self.f.error(("determinism",), f"missing (expected {' | '.join(DETERMINISM)})")
            return "nondeterministic"  # the weakest claim for a describe-only block
        if value not in DETERMINISM:
            self.f.error(("determinism",), f"{value!r} is not a determinism claim "
                                           f"(use {' | '.join(DETERMINISM)})")
            return "nondeterministic"
        stable = precision.bit_stable_on_same_hardware
        if stable is not None and stable != (value != "nondeterministic"):
            self.f.warn(("precision", "bit_stable_on_same_hardware"),
                        f"{str(stable).lower()} disagrees with "
                        f"determinism: {value}; determinism wins")
        return value

    def _declared_semantics(self) -> dict[str, str]:
        s = self._section("semantics")
        out: dict[str, str] = {}
        for key, allowed in SEMANTIC_VALUES.items():
            value = s.get(key)
            if value is None:
                continue
            if value not in allowed:
                self.f.error(("semantics", key), f"{value!r} is not a {key} rule "
                                                 f"(use {', '.join(allowed)})")
                continue
            out[key] = value
        return out


def _names(items) -> list[str]:
    """The string ``name`` of each mapping in ``items`` (anything else is reported elsewhere)."""
    if not isinstance(items, list):
        return []
    return [i["name"] for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]
