"""The oracle's fast path against its pure path on many F32 inputs (too slow for CI; run by hand).

For every OpKind the fast path covers: ``--n`` random F32 inputs (half uniform over all bit
patterns, half with magnitudes in [2^-24, 2^10), where every kernel computes rather than
saturates) plus the edge set (the Judge's edge bit patterns, the OpKind's value hints, and two
ulps either side of each), evaluated by both paths; the bits must be identical and the exact
values must agree (``oracles.fast.dispatch._exact_agrees``). Binary ops draw both operands the
same way. Work is spread over ``--processes`` worker processes in chunks.

    python benchmarks/verify_fast_oracle.py --n 1000000 --out fast-oracle-verify.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time

import numpy as np

CHUNK = 20000


def edge_set(op_kind: str) -> np.ndarray:
    import oracles
    from numerics.values import edge_bits

    hints = oracles.get(op_kind).hints("F32")
    base = np.concatenate([np.array(edge_bits("F32"), dtype=np.uint32),
                           np.array(hints, dtype=np.float32).view(np.uint32)])
    near = [base.astype(np.int64) + d for d in (-2, -1, 0, 1, 2)]
    bits = np.concatenate(near) & 0xFFFFFFFF
    return np.unique(bits.astype(np.uint32))


def random_bits(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    half = n // 2
    uniform = rng.integers(0, 1 << 32, size=half, dtype=np.uint64).astype(np.uint32)
    sign = rng.integers(0, 2, size=n - half, dtype=np.uint32) << 31
    expo = rng.integers(127 - 24, 127 + 10, size=n - half, dtype=np.uint32) << 23
    mant = rng.integers(0, 1 << 23, size=n - half, dtype=np.uint32)
    return np.concatenate([uniform, sign | expo | mant])


def _task(task):
    op_kind, arity, chunks = task
    import oracles
    from oracles import fast
    from oracles.fast import dispatch

    ins = [np.asarray(c, dtype=np.uint32).view(np.float32) for c in chunks[:arity]]
    before = dict(dispatch.stats)
    t = time.perf_counter()
    f = oracles.evaluate(op_kind, ins, {}, ["F32"], {})[0]
    fast_s = time.perf_counter() - t
    certified = dispatch.stats["certified"] - before["certified"]
    t = time.perf_counter()
    with fast.disabled():
        p = oracles.evaluate(op_kind, ins, {}, ["F32"], {})[0]
    pure_s = time.perf_counter() - t
    fb, pb = f.expected.view(np.uint32), p.expected.view(np.uint32)
    both_nan = ((fb & 0x7FFFFFFF) > 0x7F800000) & ((pb & 0x7FFFFFFF) > 0x7F800000)
    bad = np.flatnonzero((fb != pb) & ~both_nan)
    exact_bad = [i for i in range(fb.size)
                 if not dispatch._exact_agrees(f.exact.reshape(-1)[i], p.exact.reshape(-1)[i])]
    examples = [(int(i), [hex(int(c[i])) for c in chunks[:arity]], hex(int(fb[i])), hex(int(pb[i])))
                for i in bad[:5]]
    return {"n": int(fb.size), "certified": int(certified), "bit_mismatches": int(bad.size),
            "exact_disagreements": len(exact_bad), "fast_s": fast_s, "pure_s": pure_s,
            "examples": examples}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--ops", default=None, help="comma-separated OpKinds (default: all covered)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import oracles
    from oracles import fast

    ops = args.ops.split(",") if args.ops else sorted(fast.covered())
    tasks, layout = [], []
    for k, op in enumerate(ops):
        arity = oracles.get(op).arity
        operands = [np.concatenate([random_bits(args.n, 1000 * k + j), edge_set(op)])
                    for j in range(arity)]
        if arity == 2:  # every edge value also against every edge value
            e = edge_set(op)
            a, b = np.meshgrid(e, e)
            operands = [np.concatenate([operands[0], a.ravel()]), np.concatenate([operands[1], b.ravel()])]
        m = operands[0].size
        for s in range(0, m, CHUNK):
            tasks.append((op, arity, [o[s:s + CHUNK] for o in operands]))
            layout.append(op)
    totals = {op: {"n": 0, "certified": 0, "bit_mismatches": 0, "exact_disagreements": 0,
                   "fast_s": 0.0, "pure_s": 0.0, "examples": []} for op in ops}
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.processes) as pool:
        for op, res in zip(layout, pool.imap(_task, tasks), strict=True):
            tot = totals[op]
            for key in ("n", "certified", "bit_mismatches", "exact_disagreements", "fast_s", "pure_s"):
                tot[key] += res[key]
            tot["examples"] += res["examples"][: max(0, 5 - len(tot["examples"]))]
    failed = False
    for op in ops:
        t = totals[op]
        failed |= bool(t["bit_mismatches"] or t["exact_disagreements"])
        print(f"{op:20s} F32: {t['n']:,} inputs, {t['certified']:,} certified "
              f"({100 * t['certified'] / max(t['n'], 1):.2f}%), bit mismatches {t['bit_mismatches']}, "
              f"exact disagreements {t['exact_disagreements']}; fast {t['fast_s']:.1f} s, "
              f"pure {t['pure_s']:.1f} s", flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(totals, fh, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
