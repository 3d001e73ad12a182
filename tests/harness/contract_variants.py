"""Contracts for the tests, made from a block of the embedded suite with a few lines changed."""

from __future__ import annotations

import re
from pathlib import Path

SUITE = Path(__file__).resolve().parents[2] / "suites" / "fuel"


def block_text(file: str, kernel: str) -> str:
    """The ```fkc block of ``kernel`` in the suite file ``file`` (its YAML, fences excluded)."""
    text = (SUITE / file).read_text()
    for body in re.findall(r"```fkc\n(.*?)```", text, flags=re.S):
        if re.search(rf"^kernel: {re.escape(kernel)}$", body, flags=re.M):
            return body
    raise LookupError(f"{file}::{kernel}")


def variant_text(file: str, kernel: str, *edits: tuple[str, str], name: str | None = None) -> str:
    """A contract file of one block: ``kernel``'s, each (old, new) line edit applied (every
    ``old`` must be there), renamed ``name`` if given."""
    body = block_text(file, kernel)
    for old, new in edits:
        if old not in body:
            raise AssertionError(f"{old!r} is not in {file}::{kernel}")
        body = body.replace(old, new)
    if name:
        body = body.replace(f"kernel: {kernel}\n", f"kernel: {name}\n", 1)
    return f"# test contracts\n\n```fkc\n{body}```\n"


def variant(file: str, kernel: str, *edits: tuple[str, str], name: str | None = None):
    """The contract ``variant_text`` describes, loaded as the Judge loads any."""
    from judge.suite import load_text

    loaded = load_text(variant_text(file, kernel, *edits, name=name), f"{name or kernel}.fkc.md")
    assert not loaded.errors, loaded.errors
    return loaded.contracts[0]
