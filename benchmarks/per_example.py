"""Time per generated example: the Judge beside array-api-tests, same machine, same run.

Run: python benchmarks/per_example.py [--array-api-tests PATH] [--examples N]
The Judge side judges exp, tanh and add on numpy F32 at the ci profile (sandboxed backend, pure
or fast oracle as installed) and divides each item's time by its cases. The array-api-tests side
runs that suite's test_exp, test_tanh and test_add[add(x1, x2)] on numpy (PATH: a checkout of
data-apis/array-api-tests with the array-api spec in its array-api/ folder, and ndindex
installed) and divides the call time by the examples Hypothesis reports. Startup and collection
are excluded on both sides.
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


def judge_side() -> dict[str, float]:
    from judge.profiles import get_profile
    from judge.registry import default_registry
    from judge.runner import Item, run_item
    from judge.suite import load_paths

    contracts = {(Path(c.file).name, c.kernel): c for c in load_paths([ROOT / "suites" / "fuel"]).contracts}
    backend = default_registry().load_all().handle("numpy")
    out = {}
    for key in ITEMS:
        item = Item(contracts[key], backend, "F32")
        run_item(item, get_profile("ci"))  # warm: sandbox started, modules imported
        start = time.perf_counter()
        row = run_item(item, get_profile("ci")).row
        out[key[1]] = (time.perf_counter() - start) / max(row.cases, 1)
    backend.close()
    return out


def array_api_tests_side(path: Path, examples: int) -> dict[str, float]:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--array-api-tests", type=Path, default=None)
    ap.add_argument("--examples", type=int, default=100)
    args = ap.parse_args(argv)
    judge = judge_side()
    for name, seconds in judge.items():
        print(f"judge           {name:28s} {1e3 * seconds:7.2f} ms per example")
    if args.array_api_tests is None:
        return 0
    aat = array_api_tests_side(args.array_api_tests, args.examples)
    for name, seconds in aat.items():
        print(f"array-api-tests {name:28s} {1e3 * seconds:7.2f} ms per example")
    j, a = sum(judge.values()) / len(judge), sum(aat.values()) / len(aat)
    print(f"mean: judge {1e3 * j:.2f} ms, array-api-tests {1e3 * a:.2f} ms, ratio {j / a:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
