"""Edit one block's ``precision`` mapping in a contract file's text, keeping the rest as written.

``judge propose`` writes bounds and its evidence into ``.fkc.md`` files that people maintain by
hand, so the edit is textual, never a dump of the parsed tree: the block is found by its
``kernel:`` line, the values of the keys it sets are replaced in place (a trailing comment kept),
a missing key is inserted in schema order, and the evidence goes in as YAML comments right under
``precision:``, where a later run replaces them. Both spellings (indented and flattened) work.

    >>> text = apply(text, PrecisionEdit(kernel_line=24, values={"max_ulp": "3"},
    ...                                  comments=["judge propose: max_ulp from 8 rows"]))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judge.contracts.markdown import FENCE
from judge.contracts.schema import PRECISION

MARK = "judge propose"  # the first comment line of the evidence a run writes (and replaces)
_KEY = re.compile(r"^(\s*)([A-Za-z_][\w]*):(\s*)([^#]*?)(\s*#.*)?$")


class PatchError(ValueError):
    """The block cannot be edited as text (its message says why)."""


@dataclass(frozen=True)
class PrecisionEdit:
    kernel_line: int  # file line (1-based) of the block's ``kernel:`` key
    values: dict[str, str] = field(default_factory=dict)  # key -> YAML text: "3", "~", "1.5e-07"
    comments: tuple[str, ...] = ()  # comment lines, without "# ", written under ``precision:``


def apply(text: str, edit: PrecisionEdit) -> str:
    """``text`` with ``edit`` made in its block."""
    lines = text.splitlines(keepends=True)
    start, end = _block(lines, edit.kernel_line - 1)
    head = _precision_line(lines, start, end)
    if head is None:
        head = _add_section(lines, start, end, edit.kernel_line - 1)
        end += 1
    end -= _drop_old_comments(lines, head)
    indent, first, last = _section(lines, head, end)
    for key in PRECISION.keys:
        if key in edit.values:
            last = _set(lines, head, first, last, indent, key, edit.values[key])
    newline = _newline(lines[head])
    lines[head + 1:head + 1] = [f"{' ' * indent}# {c}".rstrip() + newline for c in edit.comments]
    return "".join(lines)


def _newline(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n"


def _block(lines: list[str], kernel: int) -> tuple[int, int]:
    """(index of the opening fence, index of the closing fence) around line ``kernel``."""
    start = next((i for i in range(kernel, -1, -1) if FENCE.match(lines[i])), None)
    if start is None or FENCE.match(lines[start]).group(2) != "fkc":
        raise PatchError(f"line {kernel + 1} is not inside an fkc block")
    fence = FENCE.match(lines[start]).group(1)
    end = next((i for i in range(kernel + 1, len(lines)) if lines[i].strip().startswith(fence[:3])
                and not lines[i].strip()[len(fence):].strip()), None)
    if end is None:
        raise PatchError(f"the fkc block of line {kernel + 1} is never closed")
    return start, end


def _precision_line(lines: list[str], start: int, end: int) -> int | None:
    for i in range(start + 1, end):
        m = _KEY.match(lines[i].rstrip("\r\n"))
        if m and m.group(2) == "precision":
            if m.group(4).strip():
                raise PatchError(f"line {i + 1}: precision is written inline ({m.group(4).strip()}); "
                                 "write it as a mapping to have it edited")
            return i
    return None


def _add_section(lines: list[str], start: int, end: int, kernel: int) -> int:
    """A ``precision:`` line at the block's top level, before ``determinism:`` (or at its end)."""
    base = len(lines[kernel]) - len(lines[kernel].lstrip())
    at = next((i for i in range(start + 1, end) if re.match(rf"^ {{{base}}}determinism:", lines[i])), end)
    lines.insert(at, f"{' ' * base}precision:{_newline(lines[kernel])}")
    return at


def _section(lines: list[str], head: int, end: int) -> tuple[int, int, int]:
    """(key indent, first line, last line) of the mapping under ``precision:`` at ``head``: lines
    indented deeper (the indented spelling) or, at the same column, keys of the precision
    schema (the flattened one). ``last`` < ``first`` when it holds no key yet."""
    col = len(lines[head]) - len(lines[head].lstrip())
    indent, last = None, head
    for i in range(head + 1, end):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        here = len(lines[i]) - len(lines[i].lstrip())
        m = _KEY.match(lines[i].rstrip("\r\n"))
        inside = here > col or (here == col and m is not None and m.group(2) in PRECISION.keys)
        if not inside:
            break
        indent = here if indent is None else indent
        last = i
    return (indent if indent is not None else col + 2), head + 1, last


def _drop_old_comments(lines: list[str], head: int) -> int:
    """Remove the evidence an earlier run wrote (the comment lines under ``precision:``, from
    MARK on); returns how many lines went."""
    if head + 1 >= len(lines) or not lines[head + 1].strip().startswith(f"# {MARK}"):
        return 0
    stop = head + 1
    while stop < len(lines) and lines[stop].strip().startswith("#"):
        stop += 1
    del lines[head + 1:stop]
    return stop - head - 1


def _set(lines: list[str], head: int, first: int, last: int, indent: int, key: str, value: str) -> int:
    """Give ``key`` its ``value``, in place or inserted in schema order; returns the new last line."""
    order = list(PRECISION.keys)
    later = None
    for i in range(first, last + 1):
        m = _KEY.match(lines[i].rstrip("\r\n"))
        if m is None or len(m.group(1)) != indent:
            continue
        if m.group(2) == key:
            lines[i] = f"{m.group(1)}{key}: {value}{m.group(5) or ''}{_newline(lines[i])}"
            return last
        if m.group(2) in order and order.index(m.group(2)) > order.index(key) and later is None:
            later = i
    at = later if later is not None else last + 1
    lines.insert(at, f"{' ' * indent}{key}: {value}{_newline(lines[head])}")
    return last + 1
