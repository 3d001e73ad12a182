"""The Judge: differential conformance test harness for Fuel kernel contracts.

The public plugin API (SPEC §5) is re-exported lazily: importing ``judge`` does no work.
"""

from __future__ import annotations

from judge.lazy import lazy_attributes

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


__getattr__ = lazy_attributes(__name__, _LAZY, globals())
