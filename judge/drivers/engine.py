"""The search's use of Hypothesis: one seeded run of a test over a case strategy.

Through Hypothesis' public API (``given``, ``settings``, ``seed``, ``ExampleDatabase``) except
two knobs that have no public spelling and that determinism and bounded runs depend on:

- ``hypothesis.internal.conjecture.engine.MAX_SHRINKING_SECONDS`` bounds the time spent
  minimising one failure (a profile's ``shrink_seconds``; Hypothesis' own limit is 300 s);
- ``hypothesis.internal.conjecture.providers._get_local_constants``: Hypothesis mixes constants
  found in locally imported modules into its draws. Under pytest-xdist each worker has imported
  different modules by the time an item runs, so the same seed would generate different cases;
  the search replaces it with an empty set for its runs.

``pyproject.toml`` pins the Hypothesis versions these are known in (``PINNED``), and
``tests/harness/test_hypothesis_pins.py`` fails, never skips, when either is gone. A missing
knob is an error here too, never a silent fallback: without it the same seed could give other
rows.
"""

from __future__ import annotations

import contextlib

PINNED = ">=6.155,<6.169"  # the hypothesis requirement in pyproject.toml (seen: 6.155.2, 6.168.3)


class MissingHypothesisInternal(RuntimeError):
    """An internal the search pins is not in the installed Hypothesis."""


def _missing(what: str) -> MissingHypothesisInternal:
    import hypothesis

    return MissingHypothesisInternal(
        f"Hypothesis {hypothesis.__version__} has no {what}, which the search needs for "
        f"deterministic, bounded runs; the Judge is pinned to hypothesis{PINNED} (pyproject.toml)")


def shrink_knob():
    """The module holding ``MAX_SHRINKING_SECONDS``."""
    from hypothesis.internal.conjecture import engine

    if not isinstance(getattr(engine, "MAX_SHRINKING_SECONDS", None), int):
        raise _missing("hypothesis.internal.conjecture.engine.MAX_SHRINKING_SECONDS")
    return engine


def local_constants_knob():
    """The module holding ``_get_local_constants`` and ``Constants``."""
    from hypothesis.internal.conjecture import providers

    if not callable(getattr(providers, "_get_local_constants", None)) or not hasattr(providers, "Constants"):
        raise _missing("hypothesis.internal.conjecture.providers._get_local_constants")
    return providers


@contextlib.contextmanager
def shrink_cap(seconds: int):
    """Bound the time Hypothesis spends minimising one failure (its engine reads this global)."""
    engine = shrink_knob()
    saved = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = saved


@contextlib.contextmanager
def no_local_constants():
    """Keep generation independent of which modules this process happened to import."""
    providers = local_constants_knob()
    saved = providers._get_local_constants
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = saved


def item_database(database, key: str):
    """``database`` with every key prefixed by the item's: one set of saved examples per item
    (the search's test function is the same for every item)."""
    from hypothesis.database import ExampleDatabase

    class ItemDatabase(ExampleDatabase):
        def __init__(self, inner, prefix: bytes):
            super().__init__()
            self.inner, self.prefix = inner, prefix

        def save(self, k: bytes, value: bytes) -> None:
            self.inner.save(self.prefix + k, value)

        def fetch(self, k: bytes):
            return self.inner.fetch(self.prefix + k)

        def delete(self, k: bytes, value: bytes) -> None:
            self.inner.delete(self.prefix + k, value)

        def move(self, src: bytes, dest: bytes, value: bytes) -> None:
            self.inner.move(self.prefix + src, self.prefix + dest, value)

    return ItemDatabase(database, key.encode() + b"\x00")


def aim(ulps) -> None:
    """Point the search at the case's worst ULP error: from half its budget on, Hypothesis
    mutates the cases that scored highest (``hypothesis.target``), climbing towards an input's
    worst case. A case without error is no target: climbing a score of 0 (an exact op scores 0
    on every case) would spend the second half of the budget on copies of one trivial case."""
    if ulps and max(ulps) > 0:
        from hypothesis import target

        target(float(max(ulps)), label="ulp error")


def run_seeded(body, strategy, *, seed: int, examples: int, key: str, database=None) -> None:
    """Run ``body`` over ``examples`` cases drawn from ``strategy``, seeded by ``seed`` alone;
    a failure is shrunk and re-raised."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings

    test = settings(
        max_examples=examples,
        deadline=None,
        derandomize=False,
        database=item_database(database, key) if database is not None else None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        print_blob=False,
        report_multiple_bugs=False,
    )(given(strategy)(body))
    hypothesis.seed(seed)(test)()
