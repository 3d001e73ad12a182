"""Oracle throughput, fast path against pure path, elements per second on one core.

    python benchmarks/bench_fast_oracle.py [--n 1000000] [--pure-n 4000] [--fmt F32] [--json out.json]

Inputs: F32 values drawn from a normal distribution of standard deviation 3 (the magnitudes
generated cases have; absolute values for log, sqrt and rsqrt), both operands so for binary ops.
The fast figure is the best of ``--repeats`` calls of ``oracles.evaluate`` on ``--n`` elements,
cross-check included, ``exact`` left unread (it is built when first read: the last column times
reading it once); the pure figure is one call on ``--pure-n`` elements with an empty memo.
A second row per op (``bits``) draws uniformly over all bit patterns, where many more elements
(NaN, ±inf, arguments beyond the kernels' domains) go to the pure path.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _inputs(op_kind: str, arity: int, n: int, fmt: str, kind: str, seed: int) -> list[np.ndarray]:
    from numerics.formats import get_format

    f = get_format(fmt)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(arity):
        if kind == "normal":
            x = rng.standard_normal(n) * 3
            if op_kind in ("LogElementwise", "SqrtElementwise", "RsqrtElementwise"):
                x = np.abs(x)
            out.append(x.astype(f.numpy_dtype))
        else:
            bits = rng.integers(0, 1 << f.bits, n, dtype=np.uint64).astype(f.bits_dtype)
            out.append(bits.view(f.numpy_dtype))
    return out


def _cold() -> None:
    from oracles import transcendental

    for fn in vars(transcendental).values():
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()


def measure(op_kind: str, n: int, pure_n: int, fmt: str, kind: str, repeats: int) -> dict:
    import oracles
    from oracles import fast
    from oracles.fast import dispatch

    arity = oracles.get(op_kind).arity
    ins = _inputs(op_kind, arity, n, fmt, kind, seed=1)
    oracles.evaluate(op_kind, [a[:1000] for a in ins], {}, [fmt], {})  # warm-up (tables, imports)
    best = float("inf")
    for _ in range(repeats):
        _cold()
        before = dict(dispatch.stats)
        t = time.perf_counter()
        out = oracles.evaluate(op_kind, ins, {}, [fmt], {})[0]
        best = min(best, time.perf_counter() - t)
    certified = dispatch.stats["certified"] - before["certified"]
    t = time.perf_counter()
    _ = out.exact
    exact_s = time.perf_counter() - t
    small = [a[:pure_n] for a in ins]
    _cold()
    with fast.disabled():
        t = time.perf_counter()
        oracles.evaluate(op_kind, small, {}, [fmt], {})
        pure_s = time.perf_counter() - t
    return {"op": op_kind, "fmt": fmt, "inputs": kind, "n": n, "fast_per_s": n / best,
            "pure_per_s": pure_n / pure_s, "speedup": (n / best) / (pure_n / pure_s),
            "certified_fraction": certified / n, "exact_read_s": exact_s}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--pure-n", type=int, default=4000)
    ap.add_argument("--fmt", default="F32")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ops", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    from oracles import fast

    ops = args.ops.split(",") if args.ops else sorted(fast.covered())
    rows = []
    print(f"{'OpKind':20s} {'inputs':7s} {'fast el/s':>10s} {'pure el/s':>10s} {'speedup':>8s} "
          f"{'certified':>9s} {'exact read':>10s}")
    for op in ops:
        for kind in ("normal", "bits"):
            r = measure(op, args.n, args.pure_n, args.fmt, kind, args.repeats)
            rows.append(r)
            print(f"{op:20s} {kind:7s} {r['fast_per_s']:10.3g} {r['pure_per_s']:10.3g} "
                  f"{r['speedup']:8.0f} {100 * r['certified_fraction']:8.2f}% {r['exact_read_s']:9.3f}s",
                  flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
