"""Repository-root pytest glue only; the Judge's plugin lives in ``judge/pytest_plugin.py``."""

from __future__ import annotations

import os

import hypothesis

# The Judge's own unit tests: deterministic under CI, quick locally.
hypothesis.settings.register_profile("judge-selftest-ci", derandomize=True, deadline=None, print_blob=True)
hypothesis.settings.register_profile("judge-selftest-dev", deadline=None)
hypothesis.settings.load_profile("judge-selftest-ci" if os.environ.get("CI") else "judge-selftest-dev")
