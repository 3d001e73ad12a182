"""Does the ci-profile search find each unary kernel's true worst error?

Run: python benchmarks/search_reaches_worst.py [--backend numpy --backend torch-cpu] [--out DIR]
The exhaustive 16-bit sweeps (``judge sweep``, every BF16 and F16 input) know each unary
kernel's worst integer ULP distance on a backend; the ci-profile audit (40 generated cases per
item) reports the worst it met. A kernel × backend × dtype counts as reached when the search's
worst is within 1 ulp of the sweep's. Prints the table and the share reached.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

FILE = "reference-elementwise.fkc.md"


def _rows(out: Path) -> dict[tuple[str, str, str], dict]:
    doc = json.loads((out / "results.json").read_text())
    return {(r["kernel"], r["backend"], r["dtype"]): r for r in doc["rows"]}


def _judge(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    import oracles
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", action="append", default=None)
    ap.add_argument("--out", type=Path, default=None, help="keep the sweep and audit outputs here")
    args = ap.parse_args(argv)
    backends = args.backend or ["numpy", "torch-cpu"]
    suite = Path(default_suite_path()) / FILE
    unary = {c.kernel for c in load_paths([suite]).contracts
             if c.registrable and oracles.get(c.op_kind).sweep_inputs == "all"}  # the unary ops
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        picks = [f"--backend={b}" for b in backends]
        _judge("sweep", "--kernel", f"{FILE}::*", "--dtype", "BF16", "--dtype", "F16", *picks,
               f"--out={out / 'sweep'}")
        _judge("audit", f"--contracts={suite}", "--profile=ci", *picks, f"--out={out / 'audit'}")
        sweep, search = _rows(out / "sweep"), _rows(out / "audit")
    reached, total = 0, 0
    print(f"{'kernel':14s} {'backend':10s} {'dtype':5s} {'sweep worst':>11s} {'search worst':>12s}")
    for key in sorted(k for k in sweep if k[0] in unary and k in search):
        worst = sweep[key]["ulp_max"] or 0.0
        found = search[key]["ulp_max"] or 0.0
        ok = found >= worst - 1
        reached += ok
        total += 1
        print(f"{key[0]:14s} {key[1]:10s} {key[2]:5s} {worst:11g} {found:12g}  {'reached' if ok else 'MISSED'}")
    print(f"reached {reached} of {total} kernel × backend × dtype ({100 * reached / max(total, 1):.0f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
