"""Wall time of one audit with 1 worker and with N: what ``judge audit -j N`` buys on this machine.

Run: python benchmarks/bench_parallel.py [-j N] [--repeat R] -- AUDIT OPTIONS...
for example
    python benchmarks/bench_parallel.py -j 2 -- --profile nightly --shard 1/6
Each configuration runs ``judge audit`` in a fresh process (startup, probes and report included),
writing to a temporary folder. Prints both wall times, their ratio, and whether the rows agree
(timing columns aside): they must, since an item's cases depend only on its key and the seed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMING = ("seconds", "started_at")


def audit(jobs: int, options: list[str], out: Path) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "judge.cli", "audit", "-j", str(jobs), f"--out={out}", *options],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge audit -j {jobs} exited {done.returncode}:\n{done.stderr[-2000:]}")
    rows = json.loads((out / "results.json").read_text())["rows"]
    return wall, [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("options", nargs="*", help="judge audit options (after --)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        walls: dict[int, list[float]] = {1: [], args.jobs: []}
        rows = {}
        for r in range(args.repeat):
            for jobs in walls:
                wall, rows[jobs] = audit(jobs, args.options, Path(tmp) / f"j{jobs}-{r}")
                walls[jobs].append(wall)
                print(f"-j {jobs}: {wall:7.1f} s  ({len(rows[jobs])} rows)", flush=True)
    serial, parallel = min(walls[1]), min(walls[args.jobs])
    same = rows[1] == rows[args.jobs]
    print(f"serial {serial:.1f} s, -j {args.jobs} {parallel:.1f} s, ratio {parallel / serial:.2f}; "
          f"rows {'identical' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
