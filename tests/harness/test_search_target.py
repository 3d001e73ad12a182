"""The search climbs towards each item's worst error: every judged case reports its worst ULP
distance to ``hypothesis.target``, and the run's targeting phase mutates the highest scorers."""

from __future__ import annotations

from judge.profiles import get_profile
from judge.runner import Item, run_item

REF = "reference-elementwise.fkc.md"


def test_every_case_reports_its_worst_ulp_to_hypothesis(monkeypatch, broken, suite):
    import hypothesis

    seen: list[tuple[float, str]] = []
    real = hypothesis.target

    def spy(observation, *, label=""):
        seen.append((observation, label))
        return real(observation, label=label)

    monkeypatch.setattr(hypothesis, "target", spy)
    result = run_item(Item(suite(REF, "sqrt"), broken.ExtraUlp(), "F64"), get_profile("ci"))
    assert result.row.verdict == "fail"
    assert seen and {label for _, label in seen} == {"ulp error"}
    assert max(observation for observation, _ in seen) == result.row.ulp_max >= 1


def test_the_search_runs_a_targeting_phase(monkeypatch, broken, suite):
    import hypothesis
    from hypothesis import Phase

    phases = []
    original = hypothesis.settings

    class Recording(original):
        def __init__(self, *args, **kwargs):
            phases.append(tuple(kwargs.get("phases", ())))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(hypothesis, "settings", Recording)
    run_item(Item(suite(REF, "sqrt"), broken.MiniCpu(), "F32"), get_profile("ci"))
    assert phases and all(Phase.target in p for p in phases)
