"""Human-readable rendering of one contract (``judge show``) and of its tree (``--json``)."""

from __future__ import annotations

import json

from judge.contracts.model import RULE_MEANINGS, SEMANTIC_VALUES, Contract, Layout

EDGE_KEYS = ("zeros", "init", "order", "overflow")

_LAYOUT_NAMES = {  # layout flag: how ``judge show`` names it
    "strided": "strided",
    "broadcast_stride0": "broadcast stride-0",
    "start_offset": "start offset",
    "reverse_strides": "reverse strides",
}


def tree_json(contract: Contract) -> str:
    """The normalised block tree, sorted keys (identical for both spellings of a block)."""
    return json.dumps(contract.tree, sort_keys=True, indent=2, default=str)


def layout_text(layout: Layout) -> str:
    accepted = [label for attr, label in _LAYOUT_NAMES.items() if getattr(layout, attr)]
    head = "contiguous required" if layout.contiguous_required else "contiguous accepted"
    return head + (f"; accepts {', '.join(accepted)}" if accepted else "; nothing else")


def describe(contract: Contract) -> str:
    """The contract as ``judge show`` prints it: header, accept, return, precision, semantics,
    caps and cost."""
    parts = (_header, _accept, _return, _precision, _semantics, _caps_and_cost)
    return "\n".join(line for part in parts for line in part(contract))


def _header(c: Contract) -> list[str]:
    kind = "registrable" if c.registrable else "describe-only (never run)"
    out = [f"{c.kernel}  ({c.op_kind or 'no OpKind'}, {c.backend} -> device {c.device}, {kind})",
           f"  defined at   {c.location}  [{c.spelling} spelling]"]
    if c.section:
        out.append(f"  section      {c.section}")
    if c.blurb:
        out.append(f"  blurb        {c.blurb}")
    out.append(f"  source       {c.kernel_source or '-'}  entry point {c.entry_point or '-'}")
    out.append(f"  revision     {c.revision}")
    return out


def _accept(c: Contract) -> list[str]:
    out = ["accept"]
    for spec in c.inputs:
        out.append(f"  input {spec.name}: dtypes {', '.join(spec.dtypes)}; rank {spec.rank}")
        out.append(f"    layout     {layout_text(spec.layout)}")
        if spec.shape_constraint is not None:
            sc = spec.shape_constraint
            shown = f"{sc.kind}={sc.ref}" if sc.ref else f"free text {sc.text!r}"
            if sc.ref and sc.text != f"{sc.kind}={sc.ref}":
                shown += f" (written {sc.text!r})"
            out.append(f"    shape      {shown}")
    params = c.op_params
    out.append(f"  op params    variant {params.variant or 'None'}")
    for f in params.fields:
        line = f"    {f.name}: {f.kind}"
        if f.constraint is not None:
            kinds = ", ".join(
                p.kind + (f"({p.value})" if p.value is not None else "")
                for p in f.constraint.each())
            line += f"; constraint {kinds} <- {f.constraint.text!r}"
        if f.note:
            line += f"; note {f.note!r}"
        out.append(line)
    stated = "; ".join(v.describe() for v in c.validations) or "none stated"
    out.append(f"  refuses      wrong operand count, a dtype outside an input's dtypes; {stated}")
    return out


def _return(c: Contract) -> list[str]:
    out = ["return"]
    for o in c.outputs:
        alias = "none" if o.aliasing == "none" else f"in_place({o.aliasing})"
        out.append(f"  output {o.name}: dtype {o.dtype_rule}; shape {o.shape_rule}; "
                   f"layout {o.layout_guarantee or '-'}; aliasing {alias}")
    return out


def _batch_text(declared: bool | None) -> str:
    if declared is None:
        return "batch invariance not declared (measured and reported where rows apply)"
    if declared:
        return "batch_invariant: true (a row's bits must not depend on its batch; checked)"
    return "batch_invariant: false (a row's bits may depend on its batch; reported)"


def _precision(c: Contract) -> list[str]:
    p = c.precision
    bounds = [f"{k} {v}" for k, v in (("max_ulp", p.max_ulp), ("max_relative", p.max_relative),
                                      ("max_absolute", p.max_absolute)) if v is not None]
    out = ["precision",
           f"  bounds       {', '.join(bounds) if bounds else 'none declared'}",
           f"  determinism  {c.determinism} (bit_stable_on_same_hardware: "
           f"{p.bit_stable_on_same_hardware}; audited: {p.audited})",
           f"  batch        {_batch_text(p.batch_invariant)}"]
    if p.notes:
        out.append(f"  notes        {p.notes}")
    return out


def _semantics(c: Contract) -> list[str]:
    out = ["semantics (rule <- source: evidence)"]
    for key in SEMANTIC_VALUES:
        rule = c.semantics.get(key)
        if key in EDGE_KEYS and rule.value == "unspecified":
            continue  # an edge rule only shows where something decided it
        out.append(f"  {key:<10} {rule.value} <- {_source_text(rule)}")
        meaning = RULE_MEANINGS.get((key, rule.value))
        if meaning:
            out.append(f"  {'':<10} admits: {meaning}")
    return out


def _caps_and_cost(c: Contract) -> list[str]:
    caps, cost = c.caps, c.cost
    return [
        "caps",
        f"  {caps.awkward_layout_strategy or '-'}; in_place {caps.in_place}; alignment "
        f"{caps.alignment_bytes} B; access granularity {caps.access_granularity_bits} bit",
        "cost",
        f"  {cost.provenance or '-'}, class {cost.cls or '-'}; flops "
        f"{cost.flops.text if cost.flops else '-'}; bytes moved "
        f"{cost.bytes_moved.text if cost.bytes_moved else '-'}",
    ]


def _source_text(rule) -> str:
    if rule.source in ("blurb", "notes"):
        return f"{rule.source}: {rule.evidence!r}"
    if rule.source == "semantics":
        return f"semantics: declared in {rule.evidence}"
    if rule.source == "default":
        return "default: the OpKind's oracle definition"
    return "unspecified: no declaration, phrase or default"
