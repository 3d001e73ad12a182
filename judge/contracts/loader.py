"""Load FKC files: Markdown split, front matter, block trees, typed contracts (SPEC §3)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from judge.contracts.blocktree import BlockSyntaxError, parse_block
from judge.contracts.build import DefaultsFor, ShapeRules, build_contract, normalise
from judge.contracts.errors import ContractError, LintWarning, format_path
from judge.contracts.markdown import kernel_hint, split_markdown
from judge.contracts.model import Contract, ContractFile, Provider
from judge.contracts.schema import BLOCK, FRONT_MATTER

SUFFIX = ".fkc.md"


@dataclass
class LoadResult:
    files: list[ContractFile] = field(default_factory=list)
    contracts: list[Contract] = field(default_factory=list)  # all, describe-only included
    errors: list[ContractError] = field(default_factory=list)
    warnings: list[LintWarning] = field(default_factory=list)
    blocks: int = 0  # fkc blocks seen, including those that failed to load

    @property
    def registrable(self) -> list[Contract]:
        return [c for c in self.contracts if c.registrable]

    @property
    def describe_only(self) -> list[Contract]:
        return [c for c in self.contracts if not c.registrable]

    def extend(self, other: LoadResult) -> None:
        self.files += other.files
        self.contracts += other.contracts
        self.errors += other.errors
        self.warnings += other.warnings
        self.blocks += other.blocks

    def find(self, kernel: str) -> list[Contract]:
        """Contracts named ``kernel``, or ``FILE::kernel`` (FILE matched by path suffix)."""
        if "::" in kernel:
            file, name = kernel.rsplit("::", 1)
            return [c for c in self.contracts if c.kernel == name and _same_file(c.file, file)]
        return [c for c in self.contracts if c.kernel == kernel]


def _same_file(found: str, given: str) -> bool:
    """``given`` names ``found`` exactly, by absolute path, or as a trailing path suffix."""
    if found == given or os.path.abspath(found) == os.path.abspath(given):
        return True
    return Path(found).as_posix().endswith("/" + Path(given).as_posix().lstrip("./"))


def default_suite_path() -> Path:
    """The embedded suite, ``suites/fuel`` next to the ``judge`` package."""
    return Path(__file__).resolve().parents[2] / "suites" / "fuel"


def _as_found(path: Path) -> str:
    """``suites/fuel`` when run from the repository (ids read like the user typed them)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)
    return str(path) if rel.startswith("..") else rel


def find_contract_files(paths: Iterable[str | os.PathLike]) -> list[str]:
    """Every ``*.fkc.md`` under ``paths`` (sorted per root), as found: ``suites/fuel/x.fkc.md``.

    A file named directly is taken whatever its suffix. Raises ``FileNotFoundError`` for a path
    that does not exist.
    """
    return [path for path, _root in contract_files_with_roots(paths)]


def contract_files_with_roots(paths: Iterable[str | os.PathLike]) -> list[tuple[str, str]]:
    """(path as found, the root argument it was found under) for ``find_contract_files``."""
    found: list[tuple[str, str]] = []
    for root in paths:
        root = os.fspath(root)
        if os.path.isdir(root):
            hits = []
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                hits += [os.path.join(dirpath, n) for n in filenames if n.endswith(SUFFIX)]
            found += [(p, root) for p in sorted(hits)]
        elif os.path.isfile(root):
            found.append((root, os.path.dirname(root) or "."))
        else:
            raise FileNotFoundError(f"contract path {root!r} does not exist")
    return found


def load_paths(paths: Iterable[str | os.PathLike] | None = None, *,
               defaults_for: DefaultsFor, shape_rules: ShapeRules | None = None) -> LoadResult:
    """Load every contract file under ``paths`` (default: the embedded suite)."""
    if paths is None:
        paths = [_as_found(default_suite_path())]
    result = LoadResult()
    for path, suite in contract_files_with_roots(paths):
        result.extend(load_file(path, suite=suite, defaults_for=defaults_for,
                                shape_rules=shape_rules))
    return result


def load_file(path: str | os.PathLike, *, suite: str | None = None,
              defaults_for: DefaultsFor, shape_rules: ShapeRules | None = None) -> LoadResult:
    """Load one file. Raises ``OSError`` when it cannot be read."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return load_text(text, path, suite=suite if suite is not None else os.path.dirname(path),
                     defaults_for=defaults_for, shape_rules=shape_rules)


def load_text(text: str, filename: str, *, suite: str = "",
              defaults_for: DefaultsFor, shape_rules: ShapeRules | None = None) -> LoadResult:
    """Load the contracts of one file's text; ``filename`` is how messages name it.

    ``defaults_for(op_kind)`` gives each OpKind's default semantic rules (None: no such OpKind);
    ``shape_rules`` the output shape rules the families define beside same_as, broadcast and
    reduce (name -> fewest and most operand names). The Judge loads through ``judge.suite``,
    which hands in the oracle's."""
    result = LoadResult()
    raw = split_markdown(text, filename)
    result.errors += raw.errors
    fkc_version, provider = _front_matter(raw, filename, result)
    contracts: list[Contract] = []
    first_seen: dict[str, int] = {}
    for block in raw.blocks:
        result.blocks += 1
        hint = kernel_hint(block.lines)
        try:
            parsed = parse_block(block.lines, block.first_line, BLOCK)
        except BlockSyntaxError as exc:
            result.errors.append(ContractError(filename, exc.line, hint,
                                               format_path(exc.path) or None, exc.message))
            continue
        contract, findings = build_contract(
            parsed, file=filename, first_line=block.first_line, provider=provider,
            kernel_hint=hint, suite=suite, section=block.section, defaults_for=defaults_for,
            shape_rules=shape_rules or {})
        result.warnings += findings.warnings
        result.errors += findings.errors
        name = parsed.tree.get("kernel")
        if isinstance(name, str):
            line = parsed.lines.get(("kernel",), block.first_line)
            if name in first_seen:
                # Even when the first block failed: fixing it must not reveal a clash later.
                result.errors.append(ContractError(
                    filename, line, name, "kernel", f"duplicate kernel name {name!r} in this "
                    f"file (first at line {first_seen[name]})"))
                continue
            first_seen[name] = line
        if contract is not None:
            contracts.append(contract)
    result.blocks += raw.unterminated
    result.errors.sort(key=lambda e: e.line or 0)
    result.warnings.sort(key=lambda w: w.line or 0)
    result.contracts = contracts
    result.files.append(ContractFile(filename, provider, fkc_version, tuple(contracts)))
    return result


def _front_matter(raw, filename, result) -> tuple[object, Provider]:
    if not raw.front_matter:
        return None, Provider()
    try:
        parsed = parse_block(raw.front_matter, raw.front_matter_line, FRONT_MATTER)
    except BlockSyntaxError as exc:
        result.errors.append(ContractError(filename, exc.line, None,
                                           format_path(("front matter",) + exc.path),
                                           exc.message))
        return None, Provider()
    tree = normalise(parsed.tree, FRONT_MATTER, (), None)
    for path, line in parsed.unknown:
        result.warnings.append(LintWarning(filename, line, None, format_path(path),
                                           "unknown front-matter key (ignored)"))
    if tree.get("fkc_version") not in (None, 1):
        result.warnings.append(LintWarning(
            filename, parsed.lines.get(("fkc_version",)), None, "fkc_version",
            f"fkc_version {tree['fkc_version']!r} is not one this loader knows (1)"))
    provider = tree.get("provider") or {}
    if not isinstance(provider, dict):
        result.errors.append(ContractError(filename, parsed.lines.get(("provider",)), None,
                                           "provider", f"expected a mapping, got {provider!r}"))
        provider = {}
    values = {k: provider.get(k) for k in ("name", "backend", "kernel_source", "link_registry",
                                           "revision_base")}
    values = {k: (str(v) if v is not None else None) for k, v in values.items()}
    return tree.get("fkc_version"), Provider(**values)
