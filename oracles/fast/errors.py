"""The fast path's own error (kept apart so that ``oracles.fast`` and its dispatcher do not
import each other)."""


class FastPathMismatch(AssertionError):
    """The run-time cross-check found a certified element that differs from the pure path."""
