"""Error inputs (SPEC §4): cases a kernel must refuse, judged beside the search.

The rules come from the contract: the ones its accept clause implies for every contract (the
operand count; each input's dtype within its ``dtypes``) and the ones it states in
``accept.validations`` (a divisibility, an index within an axis, a list op param as long as the
operands, a dtype the wrapper checks). Each error input breaks one rule and keeps the rest: it
is made from a valid case drawn by the item's own case strategy (the same generators), then
broken here (operand count, dtype, a param's length) or by the OpKind's family
(``Family.break_rule``: what ties shapes, params and values together).

They run once per contract and backend, on the item of the contract's first dtype, one call
each (``judge.refusal``): a worker that dies on one is restarted for the next. The implied
rules are covered whole at every profile (every wrong dtype, one operand fewer and one more),
so ci and nightly find the same acceptances: they are made from the same valid cases at every
profile (drawn with the ci profile's budget), since whether a kernel accepts one can depend on the
case (torch.nn.functional.silu reads an extra operand as its ``inplace`` flag, which a one-element
tensor satisfies and a longer one does not). A stated rule that depends on values gets
``profile.error_inputs`` cases, made from the profile's own draw.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from judge import verdict
from judge.cases import Case
from judge.contracts.model import Contract, Validation
from judge.layouts import CONTIGUOUS, build_view
from numerics.formats import get_format

# Dtypes an error input may carry in place of an accepted one, in the order they are tried.
WRONG_DTYPES = ("F32", "F64", "F16", "BF16", "I64", "I32", "U32", "U8", "I16")
SALT = 0xE1207
IMPLIED = frozenset({"operand_count", "dtype", "param_length"})  # the rules every contract implies
SHARED_DRAW = "ci"  # the profile whose draw of valid cases every profile's implied rules are made from


@dataclass(frozen=True)
class ErrorInput:
    rule: Validation
    how: str  # the rule broken, in words
    case: Case  # the error input itself (contiguous operands)
    base: Case  # the valid case it was made from


def rules_of(contract: Contract) -> list[Validation]:
    """The stated validations, then the implicit ones no stated entry already covers."""
    stated = list(contract.validations)
    rules = list(stated)
    if not any(v.kind == "operand_count" for v in stated):
        rules.append(Validation("operand_count", stated=False))
    for spec in contract.inputs:
        covered = any(v.kind == "dtype" and v.input == spec.name for v in stated)
        if not covered and wrong_dtypes(spec.dtypes):
            rules.append(Validation("dtype", input=spec.name, stated=False))
    return rules


def wrong_dtypes(accepted) -> list[str]:
    return [d for d in WRONG_DTYPES if d not in accepted]


def applies(contract: Contract, dtype: str, profile) -> bool:
    """Error inputs run on the item of the contract's first dtype, where the profile asks."""
    return bool(getattr(profile, "error_inputs", 0)) and dtype == contract.dtype_fan[0]


def cast(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` in ``dtype``: integers saturate, NaN and infinities become 0 there."""
    target = get_format(dtype).numpy_dtype
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if np.dtype(target).kind in "iu":
            wide = np.nan_to_num(values.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
            info = np.iinfo(target)
            return np.clip(wide, info.min, info.max).astype(target)
        return values.astype(np.float64).astype(target) if values.dtype.kind not in "fiu" \
            else values.astype(target)


def _case(base: Case, values, dtypes, params) -> Case:
    views = tuple(build_view(np.array(v, order="C", copy=True), tuple(v.shape), CONTIGUOUS, d)
                  for v, d in zip(values, dtypes, strict=True))
    return Case(base.dtype, views, tuple(np.array(v, copy=True) for v in values),
                tuple(CONTIGUOUS for _ in values), dict(params))


def cases_for(contract: Contract, rule: Validation, per_rule: int) -> int:
    """How many error inputs break ``rule``. The rules every contract implies are covered
    whole at every profile, so that what a run finds does not depend on its budget: each wrong
    dtype once, one operand fewer and one more, a list param one shorter and one longer. A
    rule whose breaking depends on the values drawn (an index, a divisibility) gets
    ``per_rule`` cases."""
    if rule.kind == "dtype":
        at = [s.name for s in contract.inputs].index(rule.input)
        return len(wrong_dtypes(contract.inputs[at].dtypes))
    if rule.kind in ("operand_count", "param_length"):
        return 2
    return per_rule


def break_case(contract: Contract, opdef, family, rule: Validation, base: Case, k: int,
               rng: np.random.Generator) -> ErrorInput | None:
    """The error input that breaks ``rule`` in ``base`` (the k-th made for the rule), or None
    where this case cannot break it."""
    values, params = list(base.values), dict(base.params)
    dtypes = [t.dtype for t in base.inputs]
    n = len(values)
    if rule.kind == "operand_count":
        if k % 2 == 0 and n:
            values, dtypes, how = values[:-1], dtypes[:-1], f"{n - 1} operand(s) where it takes {n}"
        else:
            extra = values[-1] if n else np.zeros(1, get_format(base.dtype).numpy_dtype)
            values, dtypes = [*values, extra.copy()], [*dtypes, dtypes[-1] if n else base.dtype]
            how = f"{n + 1} operand(s) where it takes {n}"
    elif rule.kind == "dtype":
        names = [s.name for s in contract.inputs]
        at = names.index(rule.input)
        choices = wrong_dtypes(contract.inputs[at].dtypes)
        dtype = choices[k % len(choices)]
        values[at], dtypes[at] = cast(values[at], dtype), dtype
        how = f"{rule.input} in {dtype}, outside its dtypes {list(contract.inputs[at].dtypes)}"
    elif rule.kind == "param_length":
        value = params.get(rule.param)
        if not isinstance(value, list | tuple):
            return None
        value = list(value)
        params[rule.param] = value[:-1] if k % 2 == 0 and value else [*value, value[-1] if value else 1]
        how = f"{rule.param} of length {len(params[rule.param])} for {n} operand(s)"
    else:
        got = family.break_rule(contract, opdef, rule, tuple(values), params, rng)
        if got is None:
            return None
        values, params = list(got[0]), dict(got[1])
        how = f"{rule.describe()} broken"
    return ErrorInput(rule, how, _case(base, values, dtypes, params), base)


def show(case: Case, contract: Contract) -> str:
    """The error input, one operand a line, with its values where they are few."""
    names = [s.name for s in contract.inputs]
    lines = []
    for i, (t, v) in enumerate(zip(case.inputs, case.values, strict=True)):
        name = names[i] if i < len(names) else f"extra operand {i}"
        values = f" values={np.asarray(v).reshape(-1).tolist()}" if v.size <= 16 else ""
        lines.append(f"  {name}: {t.dtype} shape={list(t.shape)}{values}")
    if case.params:
        lines.append(f"  params: {case.params}")
    return "\n".join(lines) or "  (no operands)"


def draw_bases(contract: Contract, dtype: str, profile, seed: int, key: str, count: int) -> list[Case]:
    """``count`` valid cases of the item, drawn by its case strategy under ``seed``."""
    from judge.drivers import engine
    from judge.strategies import case_strategy

    bases: list[Case] = []

    def keep(case: Case) -> None:
        bases.append(case)

    engine.run_seeded(keep, case_strategy(contract, dtype, profile.budget, False),
                      seed=seed ^ SALT, examples=count, key=key + ":errors")
    return bases


def bases_with_elements(bases: list[Case]) -> list[Case]:
    """The cases with elements only, where there are any: a kernel may return early on an empty
    operand before it looks at anything, and which profile happens to draw one must not decide
    what is found."""
    return [b for b in bases if all(np.size(v) for v in b.values)] or bases


def judge_errors(contract: Contract, backend, dtype: str, opdef, profile, seed: int, key: str,
                 expected: dict, seen: dict) -> tuple[Case, list] | None:
    """Judge the item's error inputs; records the expected checks seen in ``seen``; None if
    every one was refused (or its refusal expected), else (the error input, its findings)."""
    import oracles

    if not applies(contract, dtype, profile):
        return None
    from judge.profiles import PROFILES

    family = oracles.family_of(contract.op_kind)
    rules = rules_of(contract)
    def draw(p) -> list[Case]:  # a draw depends on the profile's budget and error inputs only
        return bases_with_elements(draw_bases(contract, dtype, p, seed, key, 3 * p.error_inputs))

    shared = PROFILES[SHARED_DRAW]
    implied = draw(shared)
    same = (profile.budget, profile.error_inputs) == (shared.budget, shared.error_inputs)
    stated = implied if same else draw(profile) if any(r.kind not in IMPLIED for r in rules) else []
    for r, rule in enumerate(rules):
        bases = implied if rule.kind in IMPLIED else stated
        wanted = cases_for(contract, rule, profile.error_inputs)
        made = 0
        for j in range(3 * wanted if bases else 0):
            if made >= wanted:
                break
            base = bases[j % len(bases)]
            error = break_case(contract, opdef, family, rule, base, made,
                               np.random.default_rng((seed, r, j)))
            if error is None:
                continue
            made += 1
            findings = run_error(contract, backend, error)
            unexpected, _ = verdict.split(findings, expected)
            for f in findings:
                if f.check in expected:
                    seen.setdefault(f.check, f.message)
            if unexpected:
                return error.case, unexpected
    return None


def run_error(contract: Contract, backend, error: ErrorInput) -> list:
    """Run one error input; its ``accepts_invalid`` finding, if the kernel did not refuse it."""
    from judge.executor import derived_params, output_dtypes, output_shapes
    from judge.refusal import refused

    base = error.base
    out_shapes = output_shapes(contract, [t.shape for t in base.inputs], base.params)
    out_dtypes = output_dtypes(contract, tuple(t.dtype for t in base.inputs))
    params = derived_params(contract, error.case.params, error.case.inputs, out_shapes)
    return refused(backend, contract, error.case.inputs, params, out_shapes, out_dtypes,
                   what=error.how, shown=show(error.case, contract))
