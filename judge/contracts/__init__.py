"""FKC contracts: loading, the typed model, lint findings (SPEC §3, §4). Data only: this package
never imports ``oracles``; the Judge loads contracts through ``judge.suite``, which hands in each
OpKind's default semantic rules and the output shape rules the families define.

Light to import: the loader and its dependencies (PyYAML) load on first use.

- ``load_paths(paths, *, defaults_for, shape_rules=None) -> LoadResult``;
  ``load_file(path, *, defaults_for, shape_rules=None)``;
  ``load_text(text, filename, *, defaults_for, shape_rules=None)``
- ``find_contract_files(paths)``; ``default_suite_path()``
- ``ContractError``, ``LintWarning`` (``judge.contracts.errors``)
- the model classes (``judge.contracts.model``)
"""

from __future__ import annotations

from judge.contracts.errors import ContractError, LintWarning
from judge.lazy import lazy_attributes

_LAZY = {
    "LoadResult": "judge.contracts.loader",
    "load_paths": "judge.contracts.loader",
    "load_file": "judge.contracts.loader",
    "load_text": "judge.contracts.loader",
    "find_contract_files": "judge.contracts.loader",
    "default_suite_path": "judge.contracts.loader",
}

__all__ = ["ContractError", "LintWarning", *sorted(_LAZY)]


__getattr__ = lazy_attributes(__name__, _LAZY, globals())
