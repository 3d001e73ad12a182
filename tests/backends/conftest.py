"""The adapter tests build their calls with ``tests/plugins/sample_calls.py`` (test code, kept
out of the shipped ``backends`` package)."""

from __future__ import annotations

import sys
from pathlib import Path

_PLUGINS = str(Path(__file__).resolve().parents[1] / "plugins")
if _PLUGINS not in sys.path:
    sys.path.insert(0, _PLUGINS)
