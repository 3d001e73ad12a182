"""The executor: plays Fuel's executor around one kernel call (SPEC §4 "Layouts and the executor").

It hands the kernel each operand as a view where the contract accepts that layout and a
contiguous copy where it does not (auto-Contiguize), pre-allocates poison-filled contiguous
outputs, calls the backend, and checks what the call did besides computing: inputs unchanged,
every output element written, output dtype and shape as the rules say, same bits on a repeat.
An output declared ``in_place(x)`` is ``x``'s own memory instead (``judge.aliasing``): its
result is read from that memory, and the rest of ``x``'s buffer must keep its bits. Every base
buffer lies between poisoned guard zones (``judge.guards``); a changed guard byte is
``out_of_bounds``.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judge import aliasing
from judge import guards as guard_zones
from judge.api import Backend, KernelCall, TensorArg, contiguous_strides
from judge.contracts.model import Contract
from judge.guards import Plan
from judge.layouts import accepted, materialize
from judge.sandbox import BackendRaised
from numerics.formats import get_format
from numerics.values import POISON_BITS


@dataclass(frozen=True)
class Finding:
    """One broken promise: ``check`` names it (the expectations vocabulary), ``message`` says how."""

    check: str
    message: str
    output: int = 0
    index: tuple[int, ...] | None = None


@dataclass
class Execution:
    kernel_inputs: tuple[TensorArg, ...]
    out_shapes: list[tuple[int, ...]]
    out_dtypes: list[str]
    outputs: list[np.ndarray] | None = None  # first run's outputs (validated dtype/shape)
    findings: list[Finding] = field(default_factory=list)
    nondeterministic_runs: int = 0
    backend_seconds: float = 0.0
    # Where the contract is nondeterministic: each repeat whose bits differ from the first
    # run's (distinct ones only), for the scorer to hold to the bound too.
    repeat_outputs: list[list[np.ndarray]] = field(default_factory=list)
    spread_ulp: float | None = None  # max ULP distance between any two runs (None: one run)
    spread_elements: int = 0  # output elements whose bits were not the same in every run


def output_dtypes(contract: Contract, in_dtypes: tuple[str, ...]) -> list[str]:
    names = [s.name for s in contract.inputs]
    out = []
    for spec in contract.outputs:
        rule = spec.dtype_rule
        if rule.kind == "fixed":
            out.append(rule.dtype)
        else:
            out.append(in_dtypes[names.index(rule.ref)] if rule.ref in names else in_dtypes[0])
    return out


def output_shapes(contract: Contract, shapes: list[tuple[int, ...]], params: dict[str, Any]) -> list[tuple[int, ...]]:
    names = [s.name for s in contract.inputs]

    def shape_of(ref: str) -> tuple[int, ...]:
        return shapes[names.index(ref)] if ref in names else shapes[0]

    out = []
    for spec in contract.outputs:
        rule = spec.shape_rule
        if rule.kind == "same_as":
            out.append(shape_of(rule.refs[0]))
        elif rule.kind == "broadcast":
            out.append(tuple(np.broadcast_shapes(*(shape_of(r) for r in rule.refs))))
        elif rule.kind != "reduce":  # a family-defined rule: the family's own shape function
            import oracles

            out.append(oracles.output_shape(rule.kind, [shape_of(r) for r in rule.refs], params))
        elif rule.reduce_by == "output_shape":
            out.append(tuple(params["output_shape"]))
        else:
            src = shape_of(rule.refs[0])
            dims = set(params.get("dims", ()))
            keep = bool(params.get("keepdim", False))
            out.append(tuple((1 if keep else None) if a in dims else s for a, s in enumerate(src)))
            out[-1] = tuple(s for s in out[-1] if s is not None)
    return out


def derived_params(contract: Contract, params: dict[str, Any], inputs: tuple[TensorArg, ...],
                   out_shapes: list[tuple[int, ...]]) -> dict[str, Any]:
    """Fill the params Fuel's dispatch derives itself (element counts, fast-path flags, shapes)."""
    full = dict(params)
    n_out = int(np.prod(out_shapes[0])) if out_shapes else 0
    for f in contract.op_params.fields:
        if f.name in full:
            continue
        if f.name in ("n", "out_size"):
            full[f.name] = n_out
        elif f.name == "flags":
            full[f.name] = int(all(t.is_contiguous() for t in inputs))
        elif f.name == "input_shape" and inputs:
            full[f.name] = list(inputs[0].shape)
    return full


def poison_output(shape: tuple[int, ...], dtype: str) -> TensorArg:
    fmt = get_format(dtype)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    base = np.full(n, POISON_BITS[dtype], dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    return TensorArg(base, tuple(shape), contiguous_strides(tuple(shape)), 0, dtype)


def _fresh(t: TensorArg) -> TensorArg:
    return TensorArg(t.base.copy(), t.shape, t.strides, t.offset, t.dtype)


def _bits(a: np.ndarray, dtype: str) -> np.ndarray:
    a = np.asarray(a)
    return np.ascontiguousarray(a).view(get_format(dtype).bits_dtype).reshape(a.shape)


def poison_expected(finding: Finding, observed, expected, dtype: str) -> bool:
    """Whether every element an ``unwritten`` finding flags holds the poison where the oracle
    expects exactly that value. An 8-bit integer's poison (0xA5) is a value arithmetic returns
    (a U8 sum of 165, an I8 one of -91): only an element that should hold something else
    proves the kernel never wrote it."""
    if finding.check != "unwritten":
        return False
    obs, exp = _bits(observed, dtype), _bits(expected, dtype)
    if obs.shape != exp.shape:
        return False
    return bool(np.all(exp[obs == POISON_BITS[dtype]] == POISON_BITS[dtype]))


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True element (works for rank 0, unlike ``np.argwhere``)."""
    return tuple(int(v) for v in np.unravel_index(int(np.flatnonzero(mask)[0]), mask.shape))


def prepare_call(inputs: tuple[TensorArg, ...], params: dict, out_shapes, out_dtypes, case_id: str,
                 aliases: dict[int, int] | None = None, *, guards: Plan | None = None,
                 names: tuple[str, ...] = ()) -> KernelCall:
    """One call on fresh copies of the inputs, into poison-filled outputs; an output in
    ``aliases`` (output index -> input index) is that input's own memory instead, whose base
    is extended by a guarded tail (``judge.aliasing``). With ``guards``, every base buffer lies
    between poisoned guard zones (``judge.guards``), named after ``names`` (the inputs')."""
    aliases = aliases or {}
    targets = set(aliases.values())
    copies = [aliasing.with_tail(t) if i in targets else t if guards is not None else _fresh(t)
              for i, t in enumerate(inputs)]  # guarding copies each base again
    zones: list = []
    if guards is not None:
        copies, zones = _guarded(copies, guards, names)
    outs = []
    for j, (shape, dtype) in enumerate(zip(out_shapes, out_dtypes, strict=True)):
        if j in aliases:
            outs.append(aliasing.alias_of(copies[aliases[j]], shape, dtype, case_id or "executor"))
            zones.extend(zones[aliases[j]:aliases[j] + 1])  # shares its target's zone
        elif guards is not None:
            out, zone = guard_zones.poisoned(shape, dtype, f"output {j}", guards)
            outs.append(out)
            zones.append(zone)
        else:
            outs.append(poison_output(shape, dtype))
    aliasing.assert_disjoint(copies, outs, aliases)
    return KernelCall(copies, dict(params), outs, list(out_dtypes), case_id, zones)


def _guarded(copies: list[TensorArg], p: Plan, names: tuple[str, ...]):
    names = names or tuple(str(i) for i in range(len(copies)))
    out = [guard_zones.guarded(t, f"input {name!r}", p, shift)
           for t, name, shift in zip(copies, names, p.shifts, strict=True)]
    return [t for t, _ in out], [z for _, z in out]


def guard_findings(call: KernelCall) -> list[Finding]:
    """``out_of_bounds``: every guard zone of ``call`` whose bytes the call changed."""
    seen, found = set(), []
    for zone in call.zones:
        if zone is None or id(zone) in seen:
            continue
        seen.add(id(zone))
        found.extend(Finding("out_of_bounds", m) for m in guard_zones.breaches(zone))
    return found


def run_calls(backend: Backend, contract: Contract, calls: list[KernelCall]) -> list[tuple[Any, float]]:
    """Each call's (result or the exception it raised, seconds). A sandboxed backend takes them
    all in one round trip to its worker (``run_many``); any other backend one after the other."""
    many = getattr(backend, "run_many", None)
    if many is not None:
        return many(contract, calls)
    done = []
    for call in calls:
        start = time.perf_counter()
        try:
            result = backend.run(contract, call)
        except Exception as exc:  # noqa: BLE001 - a kernel that raises on an accepted input is a finding
            result = exc
        done.append((result, time.perf_counter() - start))
    return done


def checked_outputs(backend: Backend, call: KernelCall, result, out_shapes, out_dtypes,
                    aliases: dict[int, int] | None = None):
    """The outputs of one call, or None with the findings that make them unusable. An output in
    ``aliases`` is read from the target memory; a returned array that differs from it fails
    ``in_place``."""
    if isinstance(result, BaseException):
        tb = str(result) if isinstance(result, BackendRaised) else \
            traceback.format_exception_only(type(result), result)[-1].strip()
        return None, [Finding("raised", f"{backend.name} raised on an accepted input: {tb}")]
    aliases = aliases or {}
    returned = result
    if result is None:
        result = [aliasing.target(o) if j in aliases else o.view() for j, o in enumerate(call.outputs)]
    if len(result) != len(out_shapes):
        return None, [Finding("shape", f"expected {len(out_shapes)} output(s), got {len(result)}")]
    findings: list[Finding] = []
    checked = []
    for i, (arr, shape, dtype) in enumerate(zip(result, out_shapes, out_dtypes, strict=True)):
        arr = np.asarray(arr)
        want = get_format(dtype).numpy_dtype
        if arr.dtype != want:
            findings.append(Finding("dtype", f"output {i}: dtype {arr.dtype}, the dtype rule says {dtype} ({want})", i))
        if tuple(arr.shape) != tuple(shape):
            findings.append(Finding("shape", f"output {i}: shape {list(arr.shape)}, the shape rule says {list(shape)}", i))
        if i in aliases:
            memory = aliasing.target(call.outputs[i])
            differ = 0 if returned is None else aliasing.returned_elsewhere(arr, memory, dtype)
            if differ:
                findings.append(Finding(
                    "in_place",
                    f"output {i} is declared in place of input {aliases[i]}: the backend returned "
                    f"an array that differs from the target memory at "
                    f"{differ} element(s); an in-place kernel's result is what it leaves in the "
                    "target, and this one did not write its result there", i))
            arr = memory
        checked.append(arr)
    return (None if findings else checked), findings


def execute(backend: Backend, contract: Contract, inputs: tuple[TensorArg, ...], params: dict[str, Any],
            *, repeats: int = 1, case_id: str = "") -> Execution:
    """Run one case through ``backend`` as Fuel's executor would, ``1 + repeats`` times."""
    kernel_inputs = tuple(
        t if accepted(t, spec.layout) else materialize(t)
        for t, spec in zip(inputs, contract.inputs, strict=True)
    )
    in_dtypes = tuple(t.dtype for t in inputs)
    out_dtypes = output_dtypes(contract, in_dtypes)
    out_shapes = output_shapes(contract, [t.shape for t in inputs], params)
    full_params = derived_params(contract, params, kernel_inputs, out_shapes)
    ex = Execution(kernel_inputs, out_shapes, out_dtypes)
    pairs = aliasing.aliases(contract)
    guards = guard_zones.plan(contract, kernel_inputs)
    names = tuple(s.name for s in contract.inputs)
    calls = [prepare_call(kernel_inputs, full_params, out_shapes, out_dtypes, case_id, pairs,
                          guards=guards, names=names)
             for _ in range(1 + repeats)]
    ran = run_calls(backend, contract, calls)
    ex.backend_seconds += sum(seconds for _, seconds in ran)
    ex.findings.extend(next((f for f in map(guard_findings, calls) if f), []))
    outputs, findings = checked_outputs(backend, calls[0], ran[0][0], out_shapes, out_dtypes, pairs)
    ex.findings.extend(findings)
    if outputs is not None or (pairs and not isinstance(ran[0][0], BaseException)):
        ex.findings.extend(_inputs_kept(contract, kernel_inputs, calls[0].inputs, set(pairs.values())))
    if outputs is None:
        return ex
    for i, (arr, dtype) in enumerate(zip(outputs, out_dtypes, strict=True)):
        if i in pairs:
            continue  # the target starts as the input's values, not poison
        unwritten = _bits(arr, dtype) == POISON_BITS[dtype]
        if unwritten.any():
            first = _first(unwritten)
            ex.findings.append(Finding(
                "unwritten",
                f"output {i}: {int(unwritten.sum())} element(s) still hold the poison pattern "
                f"0x{POISON_BITS[dtype]:X} (never written), first at index {first}",
                i, first,
            ))
    ex.outputs = outputs
    _compare_repeats(ex, backend, contract, calls, ran)
    return ex


def _inputs_kept(contract: Contract, before: tuple[TensorArg, ...], after, targets: set[int]) -> list[Finding]:
    """An input must keep its bits (``input_modified``); an input an output is declared in place
    of may change inside the region the output covers, nowhere else (``outside_written``)."""
    found = []
    for k, (spec, was, now) in enumerate(zip(contract.inputs, before, after, strict=True)):
        if k in targets:
            changed = aliasing.outside_changes(aliasing.with_tail(was), now)
            if changed.size:
                found.append(Finding(
                    "outside_written",
                    f"the in-place target {spec.name!r} changed {changed.size} element(s) of its "
                    f"buffer outside the region the output covers, first at buffer index "
                    f"{int(changed[0])} (the view starts at {now.offset}, shape {list(now.shape)}, "
                    f"strides {list(now.strides)}, buffer of {now.base.size})",
                ))
            continue
        changed = np.flatnonzero(_bits(was.base, was.dtype) != _bits(now.base, now.dtype))
        if changed.size:
            found.append(Finding(
                "input_modified",
                f"input {spec.name!r} was modified by the call ({changed.size} element(s) of its "
                f"buffer changed, first at buffer index {int(changed[0])}) and the contract "
                f"does not say in_place",
            ))
    return found


def _compare_repeats(ex: Execution, backend: Backend, contract: Contract, calls, ran) -> None:
    """Repeats on identical inputs against the first run. A contract that promises the same
    bits (bitwise, same_hardware_bitwise) fails ``determinism`` on a difference; a
    nondeterministic one keeps each distinct repeat for scoring. Both get the spread."""
    runs = [ex.outputs]
    seen = {_digest(ex.outputs, ex.out_dtypes)}
    promised = contract.determinism != "nondeterministic"
    for call, (result, _) in zip(calls[1:], ran[1:], strict=True):
        again, _ = checked_outputs(backend, call, result, ex.out_shapes, ex.out_dtypes,
                                   aliasing.aliases(contract))
        if again is None:
            continue
        runs.append(again)
        for i, (a, b, dtype) in enumerate(zip(ex.outputs, again, ex.out_dtypes, strict=True)):
            differ = _bits(a, dtype) != _bits(b, dtype)
            if not differ.any():
                continue
            ex.nondeterministic_runs += 1
            if promised:
                idx = _first(differ)
                ex.findings.append(Finding(
                    "determinism",
                    f"output {i}: a repeat on identical inputs gave different bits at {int(differ.sum())} "
                    f"element(s), first at {idx}: 0x{int(_bits(a, dtype)[idx]):X} then "
                    f"0x{int(_bits(b, dtype)[idx]):X}; the contract says {contract.determinism}",
                    i, idx,
                ))
            elif _digest(again, ex.out_dtypes) not in seen:
                seen.add(_digest(again, ex.out_dtypes))
                ex.repeat_outputs.append(again)
            break
    if len(runs) > 1:
        ex.spread_ulp, ex.spread_elements = run_spread(runs, ex.out_dtypes)


def _digest(outputs: list[np.ndarray], dtypes: list[str]) -> bytes:
    return b"".join(_bits(a, d).tobytes() for a, d in zip(outputs, dtypes, strict=True))


def run_spread(runs: list[list[np.ndarray]], out_dtypes: list[str]) -> tuple[float, int]:
    """(the largest ULP distance between any two runs at one element, the number of elements
    whose bits differ between runs), over every output. A NaN in some runs and a number in
    others is ``NAN_DISTANCE`` apart; an integer output's distance is the difference of values."""
    from numerics.ulp import NAN_DISTANCE, ordinal

    widest, elements = 0.0, 0
    for i, dtype in enumerate(out_dtypes):
        fmt = get_format(dtype)
        stack = np.stack([_bits(run[i], dtype).reshape(-1) for run in runs])
        differ = (stack != stack[0]).any(axis=0)
        elements += int(differ.sum())
        if not differ.any():
            continue
        sub = stack[:, differ]
        if not fmt.is_float:
            values = sub.view(fmt.numpy_dtype).astype(np.float64)
            widest = max(widest, float(np.ptp(values, axis=0).max()))
            continue
        ords = ordinal(sub, fmt)
        nan = np.abs(ords) >= fmt.first_nan_mag
        mixed = nan.any(axis=0) & ~nan.all(axis=0)
        ords = np.where(nan, 0, ords).astype(np.float64)  # exact below 2^53, ample for a spread
        gap = np.where(mixed, float(NAN_DISTANCE), np.ptp(ords, axis=0))
        widest = max(widest, float(gap.max()))
    return widest, elements
