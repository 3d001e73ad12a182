"""One result row per (contract, backend, dtype) — the columns of SPEC §9, in order."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

VERDICTS = ("pass", "fail", "xfail", "error", "unsupported")


@dataclass
class ResultRow:
    suite: str
    file: str
    kernel: str
    op_kind: str
    contract_backend: str
    backend: str
    device: str
    dtype: str
    revision: str
    cases: int = 0
    elements: int = 0
    ulp_max: float | None = None  # integer ULP distance against the correctly rounded value
    ulp_p99: float | None = None
    ulp_real_max: float | None = None  # real-valued |obs - exact| / ulp_F(exact), 3 decimals
    rel_max: float | None = None
    abs_max: float | None = None
    bound_ulp: float | None = None  # the contract's max_ulp (None if undeclared)
    derived_bound: str | None = None  # "reduction" | "sanity" | "exact" | None
    implausible: int = 0
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    signed_zero_mismatch: int = 0
    nondeterministic_runs: int = 0
    unwritten_outputs: int = 0
    shape_dtype_errors: int = 0
    verdict: str = "pass"
    reason: str = ""
    counterexample: str = ""  # case id of the minimal failing case
    seed: int | None = None
    judge_version: str = ""
    started_at: str = ""
    seconds: float = 0.0
    fingerprint: str = ""  # SPEC §8: the backend's environment fingerprint, as sorted JSON
    # Appended after the SPEC §9 columns, as ``fingerprint`` was:
    audited: bool | None = None  # the contract's precision.audited (None: not said)
    bound_used: float | None = None  # max over elements of |error| / the bound that held it
    ulp_max_case: str = ""  # case id of the case holding the worst-ULP element (saved in cases/)
    repeat_spread_ulp: float | None = None  # max ULP between two runs of one case (None: no repeats)
    repeat_spread_elements: int = 0  # output elements whose bits differed between repeats
    batch_invariance: str = ""  # "invariant", "varies: ... (case ID)", "" where it does not apply
    fast_path_cases: str = ""  # cases per declared fast path: "all_inputs_contiguous=31 ..."

    def key(self) -> tuple[str, str, str, str]:
        return (self.kernel, self.backend, self.dtype, self.revision)

    def as_dict(self) -> dict:
        return asdict(self)


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ResultRow))


@dataclass
class AuditRun:
    """What one audit produced: rows, failing cases, ULP samples and run metadata.

    ``ulp_samples`` maps (kernel, backend, dtype) to a 1-D float array of real-valued ULP errors
    of the finite elements seen (capped in size), for histograms. ``meta`` holds seed, profile,
    backends used, ``unavailable`` ({backend: why}), judge_version, started_at, platform, devices.
    """

    rows: list[ResultRow]
    cases: list  # list[judge.cases.CaseRecord]
    ulp_samples: dict
    meta: dict
