"""How reliably each deliberately broken backend is caught: the share of seeds whose search finds it.

Run: python benchmarks/catch_rate.py [--seeds N] [--profile ci]
The tests prove each broken backend is caught at the seed CI uses; this measures the search's
power over many seeds, so a generator change that makes some bug class rare shows as a number.
Prints one line per broken backend: caught/N, the seeds that missed, and checks that caught it.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    from judge.profiles import get_profile
    from judge.runner import Item, run_item
    from judge.suite import load_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--profile", default="ci")
    ap.add_argument("--only", default="", help="comma-separated broken backend class names")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")

    spec = importlib.util.spec_from_file_location("judge_broken", ROOT / "tests" / "plugins" / "broken.py")
    broken = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(broken)
    sys.path.insert(0, str(ROOT / "tests" / "harness"))
    from test_broken_backends import CASES

    loaded = load_paths([ROOT / "suites" / "fuel"])
    contracts = {(Path(c.file).name, c.kernel): c for c in loaded.contracts}
    wanted = {n for n in args.only.split(",") if n}
    profile = get_profile(args.profile)
    total_missed = 0
    for cls, file, kernel, dtype, _checks in CASES:
        if wanted and cls not in wanted:
            continue
        start = time.perf_counter()
        missed, checks = [], collections.Counter()
        for seed in range(args.seeds):
            row = run_item(Item(contracts[(file, kernel)], getattr(broken, cls)(), dtype), profile, seed=seed).row
            if row.verdict == "fail":
                checks[row.reason.split(":", 1)[0]] += 1
            else:
                missed.append(seed)
        total_missed += len(missed)
        print(f"{cls + ' ' + kernel + ' ' + dtype:48s} caught {args.seeds - len(missed):3d}/{args.seeds}  missed seeds {missed}  "
              f"by {dict(checks)}  ({time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if total_missed else 0


if __name__ == "__main__":
    sys.exit(main())
