"""Split an FKC Markdown file into front matter, ``## `` sections and ```` ```fkc ```` blocks.

Only fences at the start of a line count; other fenced blocks (```` ```python ```` ...) are
skipped whole, so an ``fkc`` fence shown inside them is not a contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.contracts.errors import ContractError

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")


@dataclass(frozen=True)
class RawBlock:
    """The lines of one fkc block; ``first_line`` is the file line number of ``lines[0]``."""

    lines: tuple[str, ...]
    first_line: int
    section: str


@dataclass(frozen=True)
class RawFile:
    front_matter: tuple[str, ...]
    front_matter_line: int  # file line number of the first front-matter line
    blocks: tuple[RawBlock, ...]
    errors: tuple[ContractError, ...]
    unterminated: int = 0  # fkc blocks never closed (reported in ``errors``)


def split_markdown(text: str, filename: str) -> RawFile:
    lines = text.splitlines()
    front: list[str] = []
    errors: list[ContractError] = []
    start = 0
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                front = lines[1:i]
                start = i + 1
                break
        else:
            errors.append(ContractError(filename, 1, None, "front matter",
                                        "front matter opened with '---' is never closed"))
            start = 1
    blocks: list[RawBlock] = []
    section = ""
    i = start
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        match = _FENCE.match(line)
        if match is None:
            i += 1
            continue
        fence, info = match.group(1), match.group(2)
        closer = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        end = next((j for j in range(i + 1, len(lines)) if closer.match(lines[j])), None)
        if end is None:
            if info == "fkc":
                errors.append(ContractError(
                    filename, i + 1, _kernel_hint(lines[i + 1:]), "fence",
                    f"```fkc block opened at line {i + 1} is never closed (expected a line "
                    f"'{fence}')"))
            break
        if info == "fkc":
            blocks.append(RawBlock(tuple(lines[i + 1:end]), i + 2, section))
        i = end + 1
    unterminated = sum(1 for e in errors if e.field == "fence")
    return RawFile(tuple(front), 2, tuple(blocks), tuple(errors), unterminated)


_KERNEL_LINE = re.compile(r"^\s*kernel:\s*[\"']?([\w.:-]+)")


def _kernel_hint(lines) -> str | None:
    """The kernel name of a block, read without parsing (for messages about broken blocks)."""
    for line in lines:
        match = _KERNEL_LINE.match(line)
        if match:
            return match.group(1)
        if line.startswith("```"):
            break
    return None


kernel_hint = _kernel_hint
FENCE = _FENCE  # a fence line: (fence characters, info string)
