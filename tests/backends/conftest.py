"""The adapter tests build their calls with ``tests/plugins/sample_calls.py`` (test code, kept
out of the shipped ``backends`` package); the Vulkan tests share the ``kompute`` backend."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

_PLUGINS = str(Path(__file__).resolve().parents[1] / "plugins")
if _PLUGINS not in sys.path:
    sys.path.insert(0, _PLUGINS)


@pytest.fixture(scope="module")
def kompute():
    """The kompute backend; where Vulkan cannot run it skips with the reason, and fails under CI
    (where the Vulkan backend must run)."""
    from backends.kompute.adapter import KomputeBackend

    backend = KomputeBackend()
    ok = backend.available()
    if ok is not True:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the Vulkan backend cannot run: {ok}")
        pytest.skip(f"Vulkan backend unavailable: {ok}")
    return backend
