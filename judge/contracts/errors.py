"""Contract errors and lint warnings: both name the file, line, kernel and field path."""

from __future__ import annotations

from dataclasses import dataclass


def format_finding(file: str, line: int | None, kernel: str | None, field: str | None,
                   message: str) -> str:
    """``reduce.fkc.md:88 sum_reduce_cpu accept.inputs[0].rank: <message>``."""
    where = f"{file}:{line}" if line else file
    parts = [where]
    if kernel:
        parts.append(kernel)
    head = " ".join(parts)
    return f"{head} {field}: {message}" if field else f"{head}: {message}"


def format_path(path: tuple) -> str:
    """('accept', 'inputs', 0, 'rank') -> 'accept.inputs[0].rank'."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


class ContractError(Exception):
    """A malformed contract file or block. The block it names yields no contract."""

    def __init__(self, file: str, line: int | None, kernel: str | None, field: str | None,
                 message: str) -> None:
        self.file = file
        self.line = line
        self.kernel = kernel
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        return format_finding(self.file, self.line, self.kernel, self.field, self.message)

    def __reduce__(self):  # picklable across pytest-xdist workers
        return (type(self), (self.file, self.line, self.kernel, self.field, self.message))


@dataclass(frozen=True)
class LintWarning:
    """Something suspicious that does not stop the block from loading."""

    file: str
    line: int | None
    kernel: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        return format_finding(self.file, self.line, self.kernel, self.field, self.message)
