"""Known divergences (SPEC §8): ``suites/expectations.toml``, matched exactly, never by prefix.

Each entry names (kernel, backend, dtype, check) and optionally a device (the entry then
applies only where the backend's device description contains that text), with a reason.

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
    "reduction_bound", "implausible", "determinism", "unwritten", "input_modified", "raised",
    "payload",
)


CASES_FOLDER = "expectation-cases"


class ExpectationsError(Exception):
    pass


@dataclass(frozen=True)
class Expectation:
    kernel: str
    backend: str
    dtype: str
    check: str
    reason: str
    device: str | None = None
    line: int = 0
    case_file: str | None = None  # the recorded counterexample (.npz), resolved at load time

    def applies(self, kernel: str, backend: str, dtype: str, device_desc: str) -> bool:
        return (
            (self.kernel, self.backend, self.dtype) == (kernel, backend, dtype)
            and (self.device is None or self.device in device_desc)
        )


@dataclass(frozen=True)
class Expectations:
    entries: tuple[Expectation, ...] = ()
    path: str = ""

    def for_item(self, kernel: str, backend: str, dtype: str, device_desc: str = "") -> dict[str, Expectation]:
        return {e.check: e for e in self.entries if e.applies(kernel, backend, dtype, device_desc)}


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
    entries = []
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == "[[divergence]]"]
    seen = set()
    for n, raw in enumerate(data.get("divergence", [])):
        where = f"{path}:{starts[n] if n < len(starts) else 0}"
        missing = [k for k in ("kernel", "backend", "dtype", "check", "reason") if not raw.get(k)]
        if missing:
            raise ExpectationsError(f"{where}: divergence entry lacks {', '.join(missing)}")
        if raw["check"] not in CHECKS:
            raise ExpectationsError(f"{where}: check {raw['check']!r} is not one of {', '.join(CHECKS)}")
        unknown = set(raw) - {"kernel", "backend", "dtype", "check", "reason", "device", "case"}
        if unknown:
            raise ExpectationsError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        case_file = None
        if raw.get("case"):
            case_path = path.parent / CASES_FOLDER / f"{raw['case']}.npz"
            if not case_path.is_file():
                raise ExpectationsError(f"{where}: recorded case {raw['case']!r} not found at {case_path}")
            case_file = str(case_path)
        e = Expectation(raw["kernel"], raw["backend"], raw["dtype"], raw["check"], raw["reason"],
                        raw.get("device"), starts[n] if n < len(starts) else 0, case_file)
        key = (e.kernel, e.backend, e.dtype, e.check, e.device)
        if key in seen:
            raise ExpectationsError(f"{where}: duplicate entry for {key}")
        seen.add(key)
        entries.append(e)
    return Expectations(tuple(entries), str(path))
