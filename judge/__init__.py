"""The Judge: differential conformance test harness for Fuel kernel contracts.

The public plugin API (SPEC §5) is re-exported lazily: importing ``judge`` does no work.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "Backend": "judge.api",
    "KernelCall": "judge.api",
    "TensorArg": "judge.api",
    "register_backend": "judge.registry",
    "ContractError": "judge.contracts.errors",
    "load_contracts": "judge.suite",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
