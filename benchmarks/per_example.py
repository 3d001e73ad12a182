"""Time per generated example: the Judge beside array-api-tests, same machine, same run.

Run: python benchmarks/per_example.py [--array-api-tests PATH] [--examples N]
The Judge side judges exp, tanh and add on numpy F32 at the ci profile (sandboxed backend, pure
or fast oracle as installed, the suite's expectations as under pytest) and divides each item's
time by its cases. The array-api-tests side
runs that suite's test_exp, test_tanh and test_add[add(x1, x2)] on numpy (PATH: a checkout of
data-apis/array-api-tests with the array-api spec in its array-api/ folder, and ndindex
installed) and divides the call time by the examples Hypothesis reports. Startup and collection
are excluded on both sides, and each side keeps its best of ``--repeat`` runs (this machine's
timings move by a fifth from run to run).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ITEMS = (("reference-elementwise.fkc.md", "exp"), ("reference-elementwise.fkc.md", "tanh"),
         ("reference-elementwise.fkc.md", "add"))
AAT_TESTS = ("test_exp", "test_tanh", "test_add[add(x1, x2)]")


class JudgeSide:
    """The three items, loaded once; ``once()`` judges each and returns its seconds per case."""

    def __init__(self) -> None:
        from judge.expectations import load_expectations
        from judge.profiles import get_profile
        from judge.registry import default_registry
        from judge.runner import Item
        from judge.suite import load_paths

        contracts = {(Path(c.file).name, c.kernel): c for c in load_paths([ROOT / "suites" / "fuel"]).contracts}
        self.backend = default_registry().load_all().handle("numpy")
        self.known = load_expectations()  # as pytest judges: a recorded divergence is expected, not shrunk
        self.profile = get_profile("ci")
        self.items = {key[1]: Item(contracts[key], self.backend, "F32") for key in ITEMS}
        self.once()  # warm: sandbox started, modules imported

    def once(self) -> dict[str, float]:
        from judge.runner import run_item

        out = {}
        for name, item in self.items.items():
            start = time.perf_counter()
            row = run_item(item, self.profile, expectations=self.known).row
            out[name] = (time.perf_counter() - start) / max(row.cases, 1)
        return out


def _array_api_tests_once(path: Path, examples: int) -> dict[str, float]:
    selected = [f"array_api_tests/test_operators_and_elementwise_functions.py::{t}" for t in AAT_TESTS]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *selected, f"--max-examples={examples}", "-p", "no:cacheprovider",
         "-p", "no:randomly", "-q", "--hypothesis-show-statistics", "--durations=0", "--disable-warnings"],
        cwd=path, env={**os.environ, "ARRAY_API_TESTS_MODULE": "numpy"}, capture_output=True, text=True)
    text = done.stdout
    out = {}
    for test in AAT_TESTS:
        call = re.search(rf"([\d.]+)s call\s+\S+::{re.escape(test)}\n", text)
        block = text.split(f"::{test}:", 1)[-1].split("\n\n\n", 1)[0]
        counts = [sum(map(int, m)) for m in re.findall(r"(\d+) passing examples, (\d+) failing examples, "
                                                      r"(\d+) invalid examples", block)]
        if call is None or not counts:
            raise SystemExit(f"could not read {test}'s time or examples from array-api-tests:\n{text[-3000:]}")
        out[test] = float(call.group(1)) / max(sum(counts), 1)
    return out


def _best(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {name: min(r[name] for r in rounds) for name in rounds[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--array-api-tests", type=Path, default=None)
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    side = JudgeSide()
    judge_rounds, aat_rounds = [], []
    for _ in range(args.repeat):  # the two sides alternate, so a slow spell of the machine hits both
        judge_rounds.append(side.once())
        if args.array_api_tests is not None:
            aat_rounds.append(_array_api_tests_once(args.array_api_tests, args.examples))
    side.backend.close()
    judge = _best(judge_rounds)
    for name, seconds in judge.items():
        print(f"judge           {name:28s} {1e3 * seconds:7.2f} ms per example")
    if not aat_rounds:
        return 0
    aat = _best(aat_rounds)
    for name, seconds in aat.items():
        print(f"array-api-tests {name:28s} {1e3 * seconds:7.2f} ms per example")
    mean = lambda d: sum(d.values()) / len(d)  # noqa: E731
    ratios = sorted(mean(j) / mean(a) for j, a in zip(judge_rounds, aat_rounds, strict=True))
    print(f"ratio per round (judge / array-api-tests mean): {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"best of {args.repeat}: judge {1e3 * mean(judge):.2f} ms, array-api-tests {1e3 * mean(aat):.2f} ms, "
          f"ratio {mean(judge) / mean(aat):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
