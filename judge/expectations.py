"""Known divergences (SPEC §8): ``suites/expectations.toml``, matched exactly, never by prefix.

Each entry names (kernel, backend, dtype, check) with a reason, and optionally a scope: where the
divergence holds, as predicates over the backend's environment fingerprint
(``where = { torch = ">=2.11,<2.14", cpu = "AVX512" }``, read by ``judge.fingerprint``). An entry
whose scope does not match the item's fingerprint is *inactive* there: neither xfail nor stale,
just not applicable. A reason of ``TODO`` (as ``judge baseline`` drafts it) loads, so a draft can
be tried, but ``judge lint`` refuses it.

An entry may also name a recorded counterexample, ``case = "<case id>"``, stored as
``expectation-cases/<case id>.npz`` next to the file. Before an entry whose divergence the search
did not meet is called stale, that case is replayed: the entry is stale only if the recorded
inputs no longer show the divergence either. A divergence the search meets only now and then
thus stays recorded while it is real, and goes stale the day the library is fixed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

CHECKS = (
    "dtype", "shape", "nan", "inf", "signed_zero", "subnormal", "exact", "ties", "ulp", "bound",
    "reduction_bound", "implausible", "determinism", "unwritten", "input_modified",
    "outside_written", "in_place", "raised", "payload", "batch_invariant", "out_of_bounds",
    "accepts_invalid",
)


CASES_FOLDER = "expectation-cases"


class ExpectationsError(Exception):
    pass


KEYS = ("kernel", "backend", "dtype", "check", "reason", "where", "case")


@dataclass(frozen=True)
class Expectation:
    kernel: str
    backend: str
    dtype: str
    check: str
    reason: str
    where: tuple[tuple[str, str | tuple[str, ...]], ...] = ()  # the scope's predicates, in order
    line: int = 0
    case_file: str | None = None  # the recorded counterexample (.npz), resolved at load time

    @property
    def scope(self) -> dict:
        """The scope as written (lists for alternatives), for ``judge.fingerprint``."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.where}

    @property
    def case(self) -> str | None:
        return Path(self.case_file).stem if self.case_file else None

    def names(self, kernel: str, backend: str, dtype: str) -> bool:
        return (self.kernel, self.backend, self.dtype) == (kernel, backend, dtype)

    def in_scope(self, fingerprint: dict[str, str]) -> bool:
        from judge.fingerprint import scope_matches

        return scope_matches(self.scope, fingerprint)

    @property
    def is_draft(self) -> bool:
        return self.reason.strip().upper().startswith("TODO")


@dataclass(frozen=True)
class Expectations:
    entries: tuple[Expectation, ...] = ()
    path: str = ""

    def for_item(self, kernel: str, backend: str, dtype: str,
                 fingerprint: dict[str, str] | None = None) -> dict[str, Expectation]:
        """{check: entry} of the entries naming this item whose scope holds for ``fingerprint``."""
        return {e.check: e for e in self.entries
                if e.names(kernel, backend, dtype) and e.in_scope(fingerprint or {})}

    def inactive(self, kernel: str, backend: str, dtype: str,
                 fingerprint: dict[str, str] | None = None) -> list[Expectation]:
        """The entries naming this item whose scope does not hold here ("not applicable")."""
        return [e for e in self.entries
                if e.names(kernel, backend, dtype) and not e.in_scope(fingerprint or {})]


def default_expectations_path() -> Path:
    from judge.contracts import default_suite_path

    return Path(default_suite_path()).parent / "expectations.toml"


def load_expectations(path: str | Path | None = None) -> Expectations:
    path = Path(path) if path is not None else default_expectations_path()
    if not path.exists():
        return Expectations((), str(path))
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExpectationsError(f"{path}: {exc}") from None
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == "[[divergence]]"]
    entries, seen = [], set()
    for n, raw in enumerate(data.get("divergence", [])):
        line = starts[n] if n < len(starts) else 0
        e = _entry(raw, path, line)
        key = (e.kernel, e.backend, e.dtype, e.check, e.where)
        if key in seen:
            raise ExpectationsError(f"{path}:{line}: duplicate entry for {key[:4]} "
                                    f"(scope {e.scope or 'everywhere'})")
        seen.add(key)
        entries.append(e)
    return Expectations(tuple(entries), str(path))


def _entry(raw: dict, path: Path, line: int) -> Expectation:
    """One ``[[divergence]]`` table, checked; ``ExpectationsError`` naming file:line otherwise."""
    from judge.fingerprint import ScopeError, check_scope

    where = f"{path}:{line}"
    missing = [k for k in ("kernel", "backend", "dtype", "check", "reason") if not raw.get(k)]
    if missing:
        raise ExpectationsError(f"{where}: divergence entry lacks {', '.join(missing)}")
    if raw["check"] not in CHECKS:
        raise ExpectationsError(f"{where}: check {raw['check']!r} is not one of {', '.join(CHECKS)}")
    unknown = set(raw) - set(KEYS)
    if unknown:
        hint = " (a device is a scope now: where = { vulkan_driver = ... })" if "device" in unknown else ""
        raise ExpectationsError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}{hint}")
    scope = raw.get("where", {})
    if not isinstance(scope, dict):
        raise ExpectationsError(f"{where}: where must be an inline table of fingerprint predicates")
    try:
        check_scope(scope)
    except ScopeError as exc:
        raise ExpectationsError(f"{where}: where.{exc}") from None
    case_file = None
    if raw.get("case"):
        case_path = path.parent / CASES_FOLDER / f"{raw['case']}.npz"
        if not case_path.is_file():
            raise ExpectationsError(f"{where}: recorded case {raw['case']!r} not found at {case_path}")
        case_file = str(case_path)
    frozen = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in scope.items())
    return Expectation(raw["kernel"], raw["backend"], raw["dtype"], raw["check"], raw["reason"],
                       frozen, line, case_file)
