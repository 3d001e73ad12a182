"""The audit journal: each item written down as it finishes, so an interrupted audit loses nothing
and ``judge audit --resume DIR`` judges only what is missing.

``DIR/journal/items.jsonl`` holds JSON lines, only ever appended to. The first is the header: the
run's identity (the options that decide what is judged and how, the judge version, the backends
with their devices, the known divergences, the plan: every item key of this run with its contract
revision) and when it started. Each further line is one finished item: its result row, its failing
case's id and those of the passing cases the row names (the cases themselves are in
``DIR/cases/``, written first), its ULP samples (float64, zlib,
base64: a JSON list of 20 000 floats would be ten times larger) and the warnings raised while
judging it. A line is flushed and fsync'd before the next item is taken, so a kill loses at most
the item being written; a torn last line is dropped when the journal is read again.

Unsupported items are not written: they cost nothing to plan again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import zlib
from pathlib import Path

FORMAT = "judge-journal/1"
FOLDER = "journal"
FILE = "items.jsonl"
WARNINGS_FILE = "warnings.txt"
# What must match for a journal to be resumed: anything else would mix two runs' rows.
IDENTITY = ("format", "judge_version", "request", "backends", "expectations", "plan", "items")


class JournalError(Exception):
    """The journal cannot be read or resumed: the message says which and why."""


def journal_path(out: str | Path) -> Path:
    return Path(out) / FOLDER / FILE


def run_header(*, request: dict, backends, plan: list[str], items: dict[str, str],
               expectations) -> dict:
    """The header of a run: ``request`` the options that decide what is judged ({name: value}),
    ``plan`` every item key of the unsharded plan, ``items`` {key: contract revision} of the items
    this run judges."""
    from judge.verdict import judge_version, now

    entries = getattr(expectations, "entries", ())
    header = {
        "format": FORMAT, "judge_version": judge_version(), "request": request,
        "backends": {b.name: str(b.describe()) for b in backends},
        "expectations": hashlib.sha256(repr(entries).encode()).hexdigest()[:16],
        "plan": list(plan), "items": dict(items), "started_at": now(),
    }
    return json.loads(json.dumps(header))  # as it reads back (tuples as lists), to compare


def read_header(out: str | Path) -> dict:
    """The header of the journal under ``out`` (``JournalError`` if there is none to read)."""
    return _read(journal_path(out))[0]


def differences(old: dict, new: dict) -> list[str]:
    """How run ``new`` differs from the journal's run ``old``, one phrase per difference."""
    said = []
    for name in IDENTITY:
        was, now = old.get(name), new.get(name)
        if was == now:
            continue
        if name in ("request", "backends") and isinstance(was, dict) and isinstance(now, dict):
            said += [f"{name[:-1] if name == 'backends' else 'option'} {k}: {was.get(k)!r} there, "
                     f"{now.get(k)!r} here" for k in sorted(set(was) | set(now)) if was.get(k) != now.get(k)]
        elif name == "items" and isinstance(was, dict) and isinstance(now, dict):
            gone, new_keys = sorted(set(was) - set(now)), sorted(set(now) - set(was))
            revised = sorted(k for k in set(was) & set(now) if was[k] != now[k])
            for label, keys in (("items gone", gone), ("new items", new_keys),
                                ("items of revised contracts", revised)):
                if keys:
                    said.append(f"{len(keys)} {label}, e.g. {keys[0]}")
        else:
            said.append(f"{name} differs" if name == "plan" else f"{name}: {was!r} there, {now!r} here")
    return said


class Journal:
    """An open journal: ``finished`` {item key: ItemResult} read back, ``record`` for new items."""

    def __init__(self, out: Path, header: dict, finished: dict, warnings: dict[str, list[str]]) -> None:
        self.out, self.header, self.finished = out, header, finished
        self.warnings = warnings  # item key -> the warnings raised while judging it
        self.path = journal_path(out)
        self._file = self.path.open("ab")

    @property
    def started_at(self) -> str:
        """When the run began: its first start, if it was interrupted and resumed."""
        return self.header["started_at"]

    @classmethod
    def start(cls, out: str | Path, header: dict) -> Journal:
        """A new journal under ``out`` (replacing any earlier one): a fresh run."""
        from judge.reports import atomic_write

        out = Path(out)
        (out / FOLDER).mkdir(parents=True, exist_ok=True)
        atomic_write(journal_path(out), lambda p: p.write_text(json.dumps(header) + "\n"))
        (out / FOLDER / WARNINGS_FILE).unlink(missing_ok=True)
        return cls(out, header, {}, {})

    @classmethod
    def resume(cls, out: str | Path, header: dict) -> Journal:
        """The journal under ``out``, reopened to add to it; ``JournalError`` if it is missing,
        unreadable or of another run than ``header`` describes."""
        out = Path(out)
        path = journal_path(out)
        old, entries, good = _read(path)
        said = differences(old, header)
        if said:
            raise JournalError(f"{path} is the journal of another run: " + "; ".join(said))
        with path.open("rb+") as f:  # drop a torn last line before appending after it
            f.truncate(good)
        finished, warnings = {}, {}
        for n, entry in enumerate(entries, start=2):
            result = _result(entry, out, f"{path} line {n}")
            if result is not None and entry["key"] in header["items"]:
                finished[entry["key"]] = result
                warnings[entry["key"]] = result.warnings
        return cls(out, old, finished, warnings)

    def record(self, key: str, result) -> None:
        """Write one finished item (``judge.runner.ItemResult``): its case file first, then its line."""
        from judge.reports import save_case
        from judge.reports.tables import row_record

        for case in result.all_cases():
            save_case(case, self.out / "cases")
        samples = zlib.compress(memoryview(_float64(result.ulp_samples)).cast("B"))
        entry = {"key": key, "row": row_record(result.row),
                 "case": result.case.case_id if result.case is not None else "",
                 "extra_cases": [c.case_id for c in result.extra_cases],
                 "message": result.message, "samples": base64.b64encode(samples).decode("ascii"),
                 "warnings": list(result.warnings)}
        self._file.write((json.dumps(entry, allow_nan=False) + "\n").encode())
        self._file.flush()
        os.fsync(self._file.fileno())
        if result.warnings:
            self.warnings[key] = list(result.warnings)

    def write_warnings(self) -> tuple[int, Path | None]:
        """The warnings raised while judging, per item, as ``journal/warnings.txt``:
        (how many, the file), or (0, None) when there were none."""
        from judge.reports import atomic_write

        lines = [f"{key}: {text}" for key, texts in self.warnings.items() for text in texts]
        if not lines:
            return 0, None
        path = self.out / FOLDER / WARNINGS_FILE
        return len(lines), atomic_write(path, lambda p: p.write_text("\n".join(lines) + "\n"))

    def close(self) -> None:
        self._file.close()


def _float64(values):
    import numpy as np

    return np.ascontiguousarray(values, dtype=np.float64)


def _read(path: Path) -> tuple[dict, list[dict], int]:
    """(header, item entries, bytes up to the end of the last whole line) of a journal file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"there is no journal to resume: {path} does not exist "
                           f"(the folder of an audit run holds one)") from None
    except OSError as exc:
        raise JournalError(f"{path}: {exc.strerror or exc}") from None
    entries: list[dict] = []
    good = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):  # torn: the run was killed while writing it
            break
        try:
            entries.append(json.loads(line))
        except ValueError:
            break
        good += len(line)
    if not entries or entries[0].get("format") != FORMAT:
        raise JournalError(f"{path} is not a journal of this Judge (expected a {FORMAT} header)")
    return entries[0], entries[1:], good


def _result(entry: dict, out: Path, where: str):
    """The ``ItemResult`` of a journal line, or None when its case file is gone (judged again)."""
    from judge.cases import CaseRecord
    from judge.reports.tables import row_from_record
    from judge.runner import ItemResult

    try:
        row = row_from_record(entry["row"], where)
        case = CaseRecord.load(out / "cases" / f"{entry['case']}.npz") if entry["case"] else None
        extra = [CaseRecord.load(out / "cases" / f"{c}.npz") for c in entry.get("extra_cases", [])]
        raw = zlib.decompress(base64.b64decode(entry["samples"]))
    except (KeyError, OSError, ValueError, zlib.error):
        return None
    import numpy as np

    samples = np.frombuffer(raw, dtype=np.float64)
    return ItemResult(row, entry.get("message", ""), case, samples,
                      warnings=list(entry.get("warnings", [])), extra_cases=extra)
