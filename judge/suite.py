"""Contracts as the Judge uses them: FKC files loaded with what the families define.

``judge.contracts`` is data only and never imports ``oracles`` (SPEC §2). This module is the one
place where the two meet: it hands each OpKind's default semantic rules
(``oracles.semantic_defaults``) and the output shape rules the families define
(``oracles.shape_rules``) to the loader. Everything outside ``judge.contracts`` loads contracts
through here. Nothing is imported until the first load.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from judge.contracts.loader import LoadResult


def opkind_defaults(op_kind: str) -> Mapping[str, str] | None:
    """The OpKind's default semantic rules from the oracle table (None: no such OpKind)."""
    import oracles

    return oracles.semantic_defaults(op_kind)


def family_shape_rules() -> Mapping[str, tuple[int, int | None]]:
    """The output shape rules the families define, with the operand names each takes."""
    import oracles

    return oracles.shape_rules()


def load_paths(paths: Iterable[str | os.PathLike] | None = None) -> LoadResult:
    """Every contract under ``paths`` (default: the embedded suite), with OpKind defaults."""
    from judge.contracts import loader

    return loader.load_paths(paths, defaults_for=opkind_defaults, shape_rules=family_shape_rules())


def load_file(path: str | os.PathLike, *, suite: str | None = None) -> LoadResult:
    """The contracts of one file, with OpKind defaults."""
    from judge.contracts import loader

    return loader.load_file(path, suite=suite, defaults_for=opkind_defaults,
                            shape_rules=family_shape_rules())


def load_text(text: str, filename: str, *, suite: str = "") -> LoadResult:
    """The contracts of one file's text (``filename`` names it in messages), with defaults."""
    from judge.contracts import loader

    return loader.load_text(text, filename, suite=suite, defaults_for=opkind_defaults,
                            shape_rules=family_shape_rules())


load_contracts = load_paths  # ``judge.load_contracts``
