"""Scoring: what the backend returned against the oracle and the contract (SPEC §4).

One rulebook (``judge.scoring.rules``), applied by two scorers of the same rules:

- ``judge.scoring.exact``: per element, in exact arithmetic (the search's generated cases);
- ``judge.scoring.vector``: whole arrays of numpy, cupy or torch (the exhaustive sweeps),
  ``judge.scoring.tally`` summing its verdicts over the chunks of a 2^32-input sweep.
"""

from __future__ import annotations

from judge.scoring.exact import Score, score_output
from judge.scoring.rules import bound_kind, nan_involved

__all__ = ["Score", "bound_kind", "nan_involved", "score_output"]
