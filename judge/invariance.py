"""Batch and position invariance (SPEC §4): does a row's output change when the row is computed
alone, in a larger batch, or at another position of the batch?

Inference stacks batch requests together and expect each request's bits not to depend on its
neighbours. Where an OpKind's family says how a case stacks independent rows
(``oracles.family.Family.batch_rows``: a reduction's kept axis, a row op's outer axis, a
matmul's m), the generated case is rebuilt, contiguous, as four calls made in one round trip:

- the batch as it was drawn (the reference);
- its last row alone;
- the batch reversed with that row appended again (the row at two other positions);
- a larger batch: the rows repeated to at least ``LARGER`` rows (where kernels switch tiling
  or split their reductions), the original rows first.

Every position that holds the row must give its bits in the reference (NaNs of any payload
compare equal). The first case that shows otherwise is the row's counterexample; where the
contract declares ``precision.batch_invariant: true`` it is a ``batch_invariant`` failure,
elsewhere a reported property.

    >>> check = Invariance(contract, backend, opdef, family, budget=10)
    >>> finding = check.check(case)   # None, or the Finding of the first difference
    >>> check.status()                # "invariant (10 cases)" | "varies: ... (case ID)" | ""
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judge.aliasing import aliases
from judge.api import TensorArg, contiguous_strides
from judge.executor import (
    Finding,
    checked_outputs,
    derived_params,
    output_dtypes,
    output_shapes,
    prepare_call,
    run_calls,
)
from numerics.formats import get_format

LARGER = 64  # rows of the larger batch, at least


@dataclass(frozen=True)
class Variant:
    """One call of the check: which rows of the batch, in order, and where the row lands."""

    label: str
    rows: tuple[int, ...]
    positions: tuple[int, ...]


def variants(count: int) -> list[Variant]:
    """The calls for a batch of ``count`` rows; the checked row is the last one."""
    r = count - 1
    larger = max(LARGER, 2 * count + 1)
    return [
        Variant("in the batch", tuple(range(count)), (r,)),
        Variant("alone", (r,), (0,)),
        Variant(f"at another position (a batch of {count + 1} rows)", tuple(range(count))[::-1] + (r,), (0, count)),
        Variant(f"in a larger batch ({larger} rows)", tuple(i % count for i in range(larger)), (r,)),
    ]


@dataclass
class Invariance:
    """The check over one item's cases: ``budget`` short cases and ``budget`` long ones where it
    is only reported (a long row is where a kernel switches tiling or splits its sum, and the
    short cases come first); every case where the contract declares it (a failure then shrinks
    like any other)."""

    contract: object
    backend: object
    opdef: object
    family: object
    budget: int
    checked: int = 0
    checked_long: int = 0
    varies: str = ""  # how the first counterexample showed it
    case: object = None  # that case (judge.cases.Case)
    untested: str = ""  # why a case's variants could not be run

    @property
    def declared(self) -> bool:
        return bool(self.contract.precision.batch_invariant)

    def wants(self, long: bool = False) -> bool:
        used = self.checked_long if long else self.checked - self.checked_long
        return self.declared or (not self.varies and used < self.budget)

    def check(self, case) -> Finding | None:
        """Run ``case``'s variants; a ``batch_invariant`` finding where the contract declares
        the property and the row's bits change (else None; the property is kept either way)."""
        long = bool(getattr(case, "long", False))
        if not self.wants(long):
            return None
        rows = self.family.batch_rows(self.contract, self.opdef, [v.shape for v in case.values],
                                      dict(case.params))
        count = _count(case.values, rows)
        if not count:
            return None
        outputs = self._run(case, rows, variants(count))
        if outputs is None:
            return None
        self.checked += 1
        self.checked_long += long
        how = _difference(rows, variants(count), outputs, self.dtypes(case),
                          self.contract.determinism)
        if how is None:
            return None
        if not self.varies:
            self.varies, self.case = how, case
        if not self.declared:
            return None
        return Finding("batch_invariant", f"batch_invariant: {how}; the contract declares "
                                          "precision.batch_invariant: true")

    def dtypes(self, case) -> list[str]:
        return output_dtypes(self.contract, tuple(t.dtype for t in case.inputs))

    def _run(self, case, rows, plan: list[Variant]):
        calls = [_call(self.contract, case, rows, v) for v in plan]
        ran = run_calls(self.backend, self.contract, calls)
        outputs = []
        for call, v, (result, _) in zip(calls, plan, ran, strict=True):
            shapes = [o.shape for o in call.outputs]
            got, problems = checked_outputs(self.backend, call, result, shapes, call.output_dtypes,
                                            aliases(self.contract))
            if got is None:
                self.untested = self.untested or f"{v.label}: {problems[0].message}"
                return None
            outputs.append(got)
        return outputs

    def status(self, case_id: str = "") -> str:
        """The row's ``batch_invariance`` column."""
        if self.varies:
            return f"varies: {self.varies}" + (f" (case {case_id})" if case_id else "")
        if self.checked:
            return f"invariant ({self.checked} case{'s' if self.checked != 1 else ''})"
        return f"untested: {self.untested}" if self.untested else ""


def _count(values, rows) -> int:
    """Rows in the case's batch (0: none to compare)."""
    if rows is None:
        return 0
    sizes = [v.shape[a] for v, a in zip(values, rows.inputs, strict=True) if a is not None]
    return sizes[0] if sizes else 0


def _call(contract, case, rows, variant: Variant):
    """The variant's call: contiguous operands, the row count's op params."""
    picked = np.asarray(variant.rows, dtype=np.int64)
    inputs = []
    for t, value, axis in zip(case.inputs, case.values, rows.inputs, strict=True):
        v = value if axis is None else np.take(value, picked, axis=axis)
        v = np.ascontiguousarray(v)
        inputs.append(TensorArg(v.reshape(-1).copy(), v.shape, contiguous_strides(v.shape), 0, t.dtype))
    params = rows.params(len(variant.rows))
    out_shapes = output_shapes(contract, [t.shape for t in inputs], params)
    out_dtypes = output_dtypes(contract, tuple(t.dtype for t in inputs))
    full = derived_params(contract, params, tuple(inputs), out_shapes)
    from judge.guards import plan

    # Guarded like every call (a stray store lands in a guard, not in the Judge's own memory);
    # the search's own calls report it.
    return prepare_call(tuple(inputs), full, out_shapes, out_dtypes, f"invariance {variant.label}",
                        aliases(contract), guards=plan(contract, tuple(inputs)),
                        names=tuple(s.name for s in contract.inputs))


def _difference(rows, plan: list[Variant], outputs, dtypes: list[str], determinism: str) -> str | None:
    """How the checked row's bits differ from the reference, or None where they never do."""
    reference, r = outputs[0], plan[0].positions[0]
    for variant, got in zip(plan[1:], outputs[1:], strict=True):
        for k, (want, have) in enumerate(zip(reference, got, strict=True)):
            axis = rows.outputs[k]
            expected = _bits(np.take(want, r, axis=axis), dtypes[k])
            for p in variant.positions:
                seen = _bits(np.take(have, p, axis=axis), dtypes[k])
                differ = expected != seen
                if differ.any():
                    i = int(np.flatnonzero(differ.reshape(-1))[0])
                    also = " (the contract is also nondeterministic)" if determinism == "nondeterministic" else ""
                    return (f"row {r} of {len(plan[0].rows)} (axis {axis} of output {k}) computed "
                            f"{variant.label} gave other bits at {int(differ.sum())} element(s), first at "
                            f"flat index {i}: 0x{int(expected.reshape(-1)[i]):X} in the batch, "
                            f"0x{int(seen.reshape(-1)[i]):X} {variant.label}{also}")
    return None


def _bits(a: np.ndarray, dtype: str) -> np.ndarray:
    """The element bits, every NaN alike (a NaN's payload is free here)."""
    fmt = get_format(dtype)
    a = np.ascontiguousarray(a)
    bits = a.view(fmt.bits_dtype).copy()
    if fmt.is_float:
        with np.errstate(invalid="ignore"):
            bits[np.isnan(a.astype(np.float64))] = fmt.bits_dtype.type((1 << fmt.bits) - 1)
    return bits
