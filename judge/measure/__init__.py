"""Cost bootstrapping (SPEC §12): measure what every ``judge_measured`` cost block promises.

For each contract × backend × dtype the kernel is timed over a geometric range of sizes
(``timing``), the cost model ``time(n) = overhead_ns + work(n) / rate`` is fitted by least
squares (``fit``), the achieved rate is set against a same-run device copy (``roofline``) and
the peak bytes of one call against the contract's ``memory`` expressions (``memory``).
``run.measure`` does it all; ``output`` writes ``measured-cost.json``.

Nothing is imported here: each module is loaded when its work is asked for.
"""
