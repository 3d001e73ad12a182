"""Lazy re-exports: a package's ``__getattr__`` that imports an attribute's module on first use
(PEP 562), so importing the package does no work."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, modules: Mapping[str, str],
                    namespace: dict[str, Any]) -> Callable[[str], Any]:
    """``__getattr__`` for ``package``: ``modules`` maps each attribute to the module defining
    it; the value is imported once and then kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
