"""Build the typed ``Contract`` of one parsed block, collecting every error and warning.

A block with any error yields no contract (never a half-parsed one); the caller still gets all of
that block's errors, so one ``judge lint`` run shows everything to fix. Each clause has its
reader: ``accept`` (inputs, op params), ``outputs`` (the return clause), ``sections`` (caps, cost,
precision, determinism, semantics), on the typed getters of ``reader``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from judge.contracts.accept import AcceptReader
from judge.contracts.blocktree import ParsedTree
from judge.contracts.model import DEVICE_OF_BACKEND, Contract, Location, Provider
from judge.contracts.outputs import ReturnReader
from judge.contracts.reader import Findings
from judge.contracts.schema import BLOCK, Node
from judge.contracts.sections import SectionsReader
from judge.contracts.semantics import derive
from judge.contracts.validations import ValidationsReader

#: The OpKind's default semantic rules, or None where the oracle does not define the OpKind
#: (``judge.suite`` hands in ``oracles.semantic_defaults``: this package never imports it).
DefaultsFor = Callable[[str], Mapping[str, str] | None]
#: The output shape rules the families define (``name(a, b)``): name -> (fewest, most
#: operand names; most None: any number). ``judge.suite`` hands in ``oracles.shape_rules()``.
ShapeRules = Mapping[str, tuple[int, int | None]]


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
    shape_rules: ShapeRules,
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
                    defaults_for, shape_rules).build(), findings


class _Builder(AcceptReader, ReturnReader, SectionsReader, ValidationsReader):
    """One block's contract, read clause by clause."""

    def __init__(self, tree, findings, provider, suite, section, spelling, defaults_for,
                 shape_rules):
        super().__init__(tree, findings)
        self.provider = provider
        self.suite = suite
        self.section = section
        self.spelling = spelling
        self.defaults_for = defaults_for
        self.shape_rules = shape_rules

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
        validations = self._validations(accept, inputs)
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
            section=self.section, spelling=self.spelling, validations=validations,
        )
