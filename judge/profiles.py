"""Hypothesis budgets: ``dev`` (quick, remembers failures), ``ci`` (derandomised, same cases on
every run), ``nightly`` (many more and larger cases)."""

from __future__ import annotations

from dataclasses import dataclass

from oracles.family import Budget


@dataclass(frozen=True)
class Profile:
    name: str
    max_examples: int
    derandomize: bool
    use_database: bool
    budget: Budget = Budget()
    shrink_seconds: int = 60  # cap on minimising one failure (Hypothesis' own default is 300)
    # Runs of each case under a nondeterministic contract (SPEC §4): every one is held to the
    # bound, and their spread is measured. A contract that promises the same bits runs twice.
    repeats: int = 3
    # Cases whose rows are also computed alone, moved and in a larger batch, where the contract
    # does not declare batch invariance (a declared one is checked on every case).
    invariance_cases: int = 10
    # Error inputs (SPEC §4) per rule of a contract, on each backend: the operand count, each
    # input's dtypes and the validations it states (``judge.drivers.invalid``).
    error_inputs: int = 2


PROFILES = {
    "dev": Profile("dev", 30, derandomize=False, use_database=True, error_inputs=1),
    "ci": Profile("ci", 40, derandomize=True, use_database=False, repeats=3),
    "nightly": Profile("nightly", 400, derandomize=False, use_database=True,
                       budget=Budget(max_rank=4, max_side=7, max_elements=160), shrink_seconds=300,
                       repeats=5, invariance_cases=50, error_inputs=4),
}


def get_profile(name: str) -> Profile:
    """The profile ``name``; ``JUDGE_ERROR_INPUTS=N`` in the environment sets its error inputs
    per rule (0: none), for a run that judges what kernels compute and nothing else."""
    import os
    from dataclasses import replace

    try:
        profile = PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown profile {name!r} (use {', '.join(PROFILES)})") from None
    override = os.environ.get("JUDGE_ERROR_INPUTS", "").strip()
    return replace(profile, error_inputs=int(override)) if override.isdigit() else profile
