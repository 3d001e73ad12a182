"""The remaining sections of a block: caps, cost, precision, determinism and the declared
semantic rules."""

from __future__ import annotations

from judge.contracts import cost as cost_expr
from judge.contracts.model import SEMANTIC_VALUES, Caps, Cost, CostExpr, Precision
from judge.contracts.reader import BlockReader

DETERMINISM = ("bitwise", "same_hardware_bitwise", "nondeterministic")
AWKWARD_LAYOUT_STRATEGIES = ("requires_contiguous", "handles_strided")


class SectionsReader(BlockReader):
    """Caps, cost, precision, determinism and the declared semantics."""

    def _caps(self) -> Caps:
        caps = self._section("caps")
        path = ("caps",)
        strategy = self._get(caps, path, "awkward_layout_strategy", (str,), what="a strategy")
        if strategy is not None and strategy not in AWKWARD_LAYOUT_STRATEGIES:
            self.f.error(path + ("awkward_layout_strategy",),
                         f"{strategy!r} is not a strategy (use "
                         f"{' or '.join(AWKWARD_LAYOUT_STRATEGIES)})")
        fast = caps.get("fast_paths") or []
        if not isinstance(fast, list) or not all(isinstance(x, dict) for x in fast):
            self.f.error(path + ("fast_paths",), f"expected a list of mappings, got {fast!r}")
            fast = []
        in_place = self._get(caps, path, "in_place", (bool,), what="true or false")
        align = self._get(caps, path, "alignment_bytes", (int,), what="an integer")
        gran = self._get(caps, path, "access_granularity_bits", (int,), what="an integer")
        return Caps(strategy, tuple(dict(x) for x in fast), bool(in_place), align, gran)

    def _expr(self, value, path) -> CostExpr | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.f.error(path, f"expected an arithmetic expression, got {value!r}")
            return None
        try:
            return CostExpr(str(value), cost_expr.parse(str(value)))
        except cost_expr.CostSyntaxError as exc:
            self.f.error(path, str(exc))
            return None

    def _cost(self) -> Cost:
        c = self._section("cost")
        path = ("cost",)
        memory_value = c.get("memory") or {}
        memory: dict[str, CostExpr | int] = {}
        if not isinstance(memory_value, dict):
            self.f.error(path + ("memory",), f"expected a mapping of tiers, got {memory_value!r}")
        else:
            for tier, value in memory_value.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    memory[tier] = value
                elif value is not None:
                    expr = self._expr(value, path + ("memory", tier))
                    if expr is not None:
                        memory[tier] = expr
        overhead = self._get(c, path, "overhead_ns", (int, float), what="a number of ns")
        return Cost(
            provenance=self._get(c, path, "provenance", (str,), what="a string"),
            cls=self._get(c, path, "class", (str,), what="a string"),
            flops=self._expr(c.get("flops"), path + ("flops",)),
            bytes_moved=self._expr(c.get("bytes_moved"), path + ("bytes_moved",)),
            overhead_ns=float(overhead) if overhead is not None else None,
            memory=memory,
        )

    def _precision(self) -> Precision:
        p = self._section("precision")
        path = ("precision",)
        max_ulp = self._get(p, path, "max_ulp", (int,), what="a non-negative integer")
        if max_ulp is not None and max_ulp < 0:
            self.f.error(path + ("max_ulp",), f"max_ulp {max_ulp} is negative (expected an "
                                              "integer >= 0)")
        bounds = {}
        for key in ("max_relative", "max_absolute"):
            value = self._get(p, path, key, (int, float), what="a non-negative number")
            if value is not None and (value < 0 or value != value):
                self.f.error(path + (key,), f"{key} {value} is not a non-negative number")
            bounds[key] = float(value) if value is not None else None
        return Precision(
            bit_stable_on_same_hardware=self._get(p, path, "bit_stable_on_same_hardware", (bool,),
                                                  what="true or false"),
            max_ulp=max_ulp,
            max_relative=bounds["max_relative"],
            max_absolute=bounds["max_absolute"],
            audited=self._get(p, path, "audited", (bool,), what="true or false"),
            notes=self._get(p, path, "notes", (str,), what="a string"),
            batch_invariant=self._get(p, path, "batch_invariant", (bool,), what="true or false"),
        )

    def _determinism(self, precision: Precision, registrable: bool) -> str:
        value = self.tree.get("determinism")
        if value is None:
            if registrable:
                self.f.error(("determinism",), f"missing (expected {' | '.join(DETERMINISM)})")
            return "nondeterministic"  # the weakest claim for a describe-only block
        if value not in DETERMINISM:
            self.f.error(("determinism",), f"{value!r} is not a determinism claim "
                                           f"(use {' | '.join(DETERMINISM)})")
            return "nondeterministic"
        stable = precision.bit_stable_on_same_hardware
        if stable is not None and stable != (value != "nondeterministic"):
            self.f.warn(("precision", "bit_stable_on_same_hardware"),
                        f"{str(stable).lower()} disagrees with "
                        f"determinism: {value}; determinism wins")
        if precision.batch_invariant and value == "nondeterministic":
            self.f.warn(("precision", "batch_invariant"),
                        "true beside determinism: nondeterministic: a row's bits may change "
                        "between runs, so a difference across batches may be run-to-run noise")
        return value

    def _declared_semantics(self) -> dict[str, str]:
        s = self._section("semantics")
        out: dict[str, str] = {}
        for key, allowed in SEMANTIC_VALUES.items():
            value = s.get(key)
            if value is None:
                continue
            if value not in allowed:
                self.f.error(("semantics", key), f"{value!r} is not a {key} rule "
                                                 f"(use {', '.join(allowed)})")
                continue
            out[key] = value
        return out
