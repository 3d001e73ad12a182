"""Reading one block's tree: typed getters that record an error or warning against the field's
line (``Findings``), shared by the section readers of ``judge.contracts.build``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from judge.contracts.errors import ContractError, LintWarning, format_path


@dataclass
class Findings:
    """Where a block's problems are collected, with line lookup by field path."""

    file: str
    kernel: str | None
    lines: Mapping[tuple, int]
    first_line: int
    errors: list[ContractError] = field(default_factory=list)
    warnings: list[LintWarning] = field(default_factory=list)

    def line(self, path: tuple) -> int:
        for cut in range(len(path), 0, -1):
            found = self.lines.get(path[:cut])
            if found is not None:
                return found
        return self.first_line

    def error(self, path: tuple, message: str) -> None:
        self.errors.append(ContractError(self.file, self.line(path), self.kernel,
                                         format_path(path) or None, message))

    def warn(self, path: tuple, message: str) -> None:
        self.warnings.append(LintWarning(self.file, self.line(path), self.kernel,
                                         format_path(path) or None, message))


class BlockReader:
    """The normalised tree of one block and where its findings go."""

    def __init__(self, tree: dict, findings: Findings) -> None:
        self.tree = tree
        self.f = findings

    def _get(self, mapping, path, key, types, *, required=False, what="a value"):
        if not isinstance(mapping, dict) or mapping.get(key) is None:
            if required:
                self.f.error(path + (key,), f"missing (expected {what})")
            return None
        value = mapping[key]
        if isinstance(value, bool) and bool not in types:
            self.f.error(path + (key,), f"expected {what}, got {value!r}")
            return None
        if not isinstance(value, types):
            self.f.error(path + (key,), f"expected {what}, got {value!r}")
            return None
        return value

    def _operands(self, section, path, registrable, what) -> list | None:
        """The non-empty operand list at ``path`` (``inputs`` or ``outputs`` of ``section``);
        None, with the error, where it is missing from a registrable block or not such a list."""
        items = section.get(path[-1])
        if items is None:
            if registrable and section:
                self.f.error(path, f"missing (a registrable block declares at least one {what})")
            return None
        if not isinstance(items, list) or not items:
            self.f.error(path, f"expected a non-empty list of {what}s, got {items!r}")
            return None
        return items

    def _each_operand(self, items, path, what):
        """(path, mapping, name or None) of each entry of an operand list; an entry that is not
        a mapping is reported and skipped."""
        for index, item in enumerate(items):
            ipath = path + (index,)
            if not isinstance(item, dict):
                self.f.error(ipath, f"expected an {what} mapping (- name: ...), got {item!r}")
                continue
            yield ipath, item, self._get(item, ipath, "name", (str,), required=True,
                                         what="an operand name")

    def _section(self, key, *, required=False) -> dict:
        value = self.tree.get(key)
        if value is None:
            if required:
                self.f.error((key,), "missing section (a registrable block must declare it)")
            return {}
        if not isinstance(value, dict):
            self.f.error((key,), f"expected a mapping, got {value!r}")
            return {}
        return value


def operand_names(items) -> list[str]:
    """The string ``name`` of each mapping in ``items`` (anything else is reported elsewhere)."""
    if not isinstance(items, list):
        return []
    return [i["name"] for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]
