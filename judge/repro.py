"""Standalone repro scripts for recorded cases: copy, paste, run."""

from __future__ import annotations

import base64
import textwrap

from judge.cases import CaseRecord


def repro_script(record: CaseRecord) -> str:
    """A Python script that rebuilds the exact call of ``record`` and re-judges it.

    The inputs travel inside the script (the case's ``.npz`` bytes, base64), so it needs only the
    Judge and the backend's library installed.
    """
    payload = base64.b64encode(record.to_bytes()).decode()
    wrapped = "\n".join(textwrap.wrap(payload, 96))
    params = repr(record.params)
    lines = [
        f"# Repro: {record.kernel} on backend {record.backend} ({record.dtype}), case {record.case_id}",
        f"# Contract file: {record.file}",
        f"# Failed check: {record.check or '-'}",
        *(f"#   {line}" for line in (record.message or "").splitlines()[:8]),
        "import base64",
        "",
        "from judge.cases import CaseRecord",
        "from judge.runner import replay_case",
        "",
        f'CASE = base64.b64decode("""\n{wrapped}\n""".replace("\\n", ""))',
        "",
        "record = CaseRecord.from_bytes(CASE)",
        "for i, t in enumerate(record.inputs):",
        "    print(f'input {i}: {t.dtype} shape={t.shape} strides={t.strides} offset={t.offset}')",
        "    print(t.to_array())",
        f"print('params:', {params})",
        f"verdict, message = replay_case(record, contracts_path={record.file!r})",
        "print(verdict)",
        "print(message)",
        "raise SystemExit(0 if verdict == 'pass' else 1)",
    ]
    return "\n".join(lines) + "\n"
