"""A call whose error leaves the device unusable (CUDA's sticky errors) does not fail the calls
after it: its worker is replaced when the backend says its context is lost."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge.api import TensorArg
from judge.sandbox import BackendRaised

PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "sticky.py"


@pytest.fixture(scope="module")
def neg():
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    (contract,) = [c for c in load_paths([default_suite_path()]).find("neg") if c.backend == "Cpu"]
    return contract


def _calls(cls: str, neg) -> list[str]:
    import sys

    from judge.api import KernelCall
    from judge.registry import load_plugin
    from judge.sandbox import IsolatedBackend, spec_of

    load_plugin(str(PLUGIN))
    module = next(m for n, m in sys.modules.items() if n.startswith("judge_plugin_")
                  and getattr(m, "__file__", "") == str(PLUGIN))
    inner = getattr(module, cls)()
    backend = IsolatedBackend(inner, spec_of(inner, (str(PLUGIN),)), cls)
    seen = []
    try:
        for values in ([1.0, 2.0], [1234.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
            x = np.asarray(values, np.float32)
            out = np.zeros(2, np.float32)
            call = KernelCall([TensorArg(x, (2,), (1,), 0, "F32")], {}, [TensorArg(out, (2,), (1,), 0, "F32")],
                              ["F32"], "sticky")
            try:
                backend.run(neg, call)
                seen.append("ok")
            except BackendRaised:
                seen.append("raised")
    finally:
        backend.close()
    return seen


def test_a_lost_context_gets_a_fresh_worker(neg):
    assert _calls("Sticky", neg) == ["ok", "raised", "ok", "ok"]


def test_without_the_check_every_later_call_fails(neg):
    assert _calls("SilentSticky", neg) == ["ok", "raised", "raised", "raised"]
