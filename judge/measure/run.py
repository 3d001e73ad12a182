"""``measure``: time every contract × backend × dtype, fit its cost model, check its hints.

For one item (a contract × backend × dtype on one fast path: contiguous, strided or broadcast
inputs, as ``sizes.paths_for`` finds the contract accepts): sizes ascending over the geometric
range; at each size a fresh call (``sizes``), the backend's ``timed`` call (or ``run`` on the host clock), warm-up and stable
repeats (``timing``), the peak bytes of one call (``memory``). A size whose projected time does
not fit what is left of the item's budget is not measured, and the entry says so. Then the fit
of ``time = overhead_ns + work / rate`` (``fit``), with ``work`` from ``bytes_moved`` for
bandwidth classes and ``flops`` for compute classes, and the rate against the backend's copy
roofline measured in the same run (``roofline``).
"""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, field, replace

from judge.measure.fit import Fit, fit_cost
from judge.measure.memory import HOST_METHOD, MemoryCheck, host_peak_bytes, promised_bytes
from judge.measure.roofline import Roofline, measure_roofline
from judge.measure.sizes import (
    DEFAULT_LOG2,
    cost_variables,
    make_call,
    paths_for,
    plan_call,
    size_range,
)
from judge.measure.timed import RunCall
from judge.measure.timing import WARMUP_CALLS, SizeSample, TimingPolicy, time_size

SPREAD_LIMIT = 0.2  # IQR / median above this makes a size noisy
FIT_LIMIT = 0.15  # rms relative residual above this: time is not linear in the hinted work
ROOF_OVER = 1.1  # a rate above 110% of the copy: the hint counts more work than is done
ROOF_UNDER = 0.25  # below 25% of the copy: a finding about the library, not an error


@dataclass(frozen=True)
class MeasureOptions:
    log2: tuple[int, int] | None = None  # None: DEFAULT_LOG2 of the backend's device class
    item_budget_s: float = 20.0
    policy: TimingPolicy = TimingPolicy()
    seed: int = 0
    dtypes: tuple[str, ...] | None = None  # None: every dtype of each contract's fan
    paths: tuple[str, ...] | None = None  # None: every fast path the contract accepts

    def sizes(self, device: str) -> list[int]:
        lo, hi = self.log2 or DEFAULT_LOG2.get(device, (4, 20))
        return size_range(lo, hi)


@dataclass
class SizePoint:
    sample: SizeSample
    work: float
    variables: dict[str, float]
    host_bytes: int | None = None
    host_method: str = ""
    device_bytes: int | None = None
    device_method: str = ""


@dataclass
class Entry:
    contract: object
    backend: object
    dtype: str
    path: str = "contiguous"  # the inputs' layout: one of judge.measure.sizes.PATHS
    work_name: str = ""  # bytes_moved | flops | n
    work_expr: str = ""
    unit: str = ""  # B | flop | elem
    clock: str = ""
    points: list[SizePoint] = field(default_factory=list)
    fit: Fit | None = None
    roofline_fraction: float | None = None
    memory: list[MemoryCheck] = field(default_factory=list)
    truncated: str = ""
    error: str = ""
    findings: list[str] = field(default_factory=list)
    unsupported: str = ""

    @property
    def key(self) -> str:
        path = "" if self.path == "contiguous" else f"-{self.path}"
        return f"{self.contract.kernel}[{self.backend.name}-{self.dtype}{path}]"


@dataclass
class MeasureRun:
    entries: list[Entry]
    rooflines: dict[str, Roofline]
    options: MeasureOptions
    started_at: str = ""
    seconds: float = 0.0
    unavailable: dict[str, str] = field(default_factory=dict)


def work_of(cost) -> tuple[str, object, str, str]:
    """(name, expression, unit, note): what ``work(n)`` is for this cost block."""
    from judge.contracts.cost import cost_class_work

    cls = cost.cls or ""
    work = cost_class_work(cls)
    if work == "flops" and cost.flops is not None:
        return "flops", cost.flops, "flop", ""
    if work == "bytes_moved" and cost.bytes_moved is not None:
        return "bytes_moved", cost.bytes_moved, "B", ""
    for name, expr, unit in (("bytes_moved", cost.bytes_moved, "B"), ("flops", cost.flops, "flop")):
        if expr is not None:
            return name, expr, unit, (f"class {cls or '(none)'} is neither a bandwidth nor a "
                                      f"compute class; work is {name}")
    return "n", None, "elem", "the cost block gives neither bytes_moved nor flops; work is n"


def measure_item(contract, backend, dtype: str, options: MeasureOptions, path: str = "contiguous") -> Entry:
    from judge.contracts.cost import evaluate

    entry = Entry(contract, backend, dtype, path)
    entry.work_name, expr, entry.unit, note = work_of(contract.cost)
    entry.work_expr = expr.text if expr is not None else "n"
    if note:
        entry.findings.append(note)
    sizes = options.sizes(backend.device)
    budget_ns = int(options.item_budget_s * 1e9)
    spent = 0  # timing only: preparing inputs and compiling kernels is not the kernel's time
    for index, n in enumerate(sizes):
        left = budget_ns - spent
        if entry.points:
            last = entry.points[-1].sample
            projected = last.median_ns * n / last.n  # at most that: overhead does not grow
            need = projected * (WARMUP_CALLS + options.policy.min_reps)
            if need > left:
                entry.truncated = (
                    f"sizes above {last.n} were not measured: one call at {last.n} took "
                    f"{last.median_ns / 1e6:.3g} ms, and {n} would not fit the "
                    f"{options.item_budget_s:g} s budget of the item")
                break
        try:
            call = make_call(contract, plan_call(contract, dtype, n), seed=options.seed, path=path)
            variables = cost_variables(call, dtype)
            timed = _timed(backend, contract, call)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot prepare is reported
            entry.error = f"at n={n}: {_exc_line(exc)}"
            break
        try:
            entry.clock = timed.clock
            share = max(left, 0) // (len(sizes) - index)  # an equal share of what is left
            policy = replace(options.policy, budget_ns=int(min(options.policy.budget_ns, share)))
            began = time.perf_counter_ns()
            sample = time_size(timed, n, policy)
            spent += time.perf_counter_ns() - began
            work = float(evaluate(expr, **variables)) if expr is not None else variables["n"]
            entry.points.append(SizePoint(sample, work, variables))
        except Exception as exc:  # noqa: BLE001 - a kernel that raises is reported, not fatal
            entry.error = f"at n={n}: {_exc_line(exc)}"
            break
        finally:
            timed.close()
    if entry.points:
        _measure_memory(entry, options)
    _conclude(entry)
    return entry


def _measure_memory(entry: Entry, options: MeasureOptions) -> None:
    """Peak bytes of one call at the largest size measured (outside the time budget: a
    memory probe such as torch's profiler takes far longer than the call)."""
    point = entry.points[-1]
    try:
        call = make_call(entry.contract, plan_call(entry.contract, entry.dtype, point.sample.n),
                         seed=options.seed, path=entry.path)
        timed = _timed(entry.backend, entry.contract, call)
        try:
            timed.launch()  # settle lazy allocations (workspaces, caches) before the probe
            timed.sync()
            point.host_bytes, point.host_method = host_peak_bytes(timed)
            device = timed.peak_device_bytes()
            if device is not None:
                point.device_bytes, point.device_method = device
        finally:
            timed.close()
    except Exception as exc:  # noqa: BLE001 - a failed probe loses the memory figures only
        entry.findings.append(f"memory not measured: {_exc_line(exc)}")


def _timed(backend, contract, call):
    timed = getattr(backend, "timed", None)
    made = timed(contract, call) if timed is not None else None
    return made if made is not None else RunCall(backend, contract, call)


def _exc_line(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def _conclude(entry: Entry) -> None:
    points = [p for p in entry.points if p.work > 0]
    if len({p.work for p in points}) >= 2:
        entry.fit = fit_cost([p.work for p in points], [p.sample.median_ns for p in points])
        if not entry.fit.rate_determined:
            entry.findings.append(
                f"overhead-bound up to n = {points[-1].sample.n} ({entry.work_name} is "
                f"{entry.fit.work_share:.0%} of its time): the rate is not determined; "
                "measure larger sizes")
        if entry.fit.rms_rel > FIT_LIMIT:
            entry.findings.append(
                f"time is not linear in {entry.work_name} = {entry.work_expr}: the fit's rms "
                f"relative residual is {entry.fit.rms_rel:.0%}")
    elif not entry.error:
        entry.error = "fewer than two sizes were measured; no fit"
    noisy = [p.sample.n for p in entry.points
             if p.sample.spread > SPREAD_LIMIT or not p.sample.stable]
    if noisy:
        entry.findings.append(
            f"noisy at {len(noisy)} of {len(entry.points)} sizes (median unsettled or spread "
            f"above {SPREAD_LIMIT:.0%}): n = {', '.join(f'2^{n.bit_length() - 1}' for n in noisy)}")
    if entry.truncated:
        entry.findings.append(entry.truncated)
    if entry.clock.startswith("run_") and entry.backend.device != "cpu":
        entry.findings.append(f"{entry.backend.name} has no Backend.timed: timed through run(), "
                              "host-device transfers included")
    declared = entry.contract.cost.overhead_ns
    if declared is not None and entry.fit is not None and entry.fit.overhead_ns > 0:
        ratio = entry.fit.overhead_ns / declared if declared > 0 else math.inf
        if not 0.5 <= ratio <= 2.0:
            entry.findings.append(f"overhead_ns declared {declared:g}, measured "
                                  f"{entry.fit.overhead_ns:.0f}")
    if entry.points:
        _check_memory(entry)


def _check_memory(entry: Entry) -> None:
    last = entry.points[-1]
    if last.host_bytes is None and last.device_bytes is None:
        return
    cost = entry.contract.cost
    host_tier, device_tier = "host_bytes", "device_bytes"
    checks = [MemoryCheck(host_tier, promised_bytes(cost, host_tier, last.variables),
                          last.host_bytes or 0, last.host_method or HOST_METHOD)]
    if last.device_bytes is not None:
        checks.append(MemoryCheck(device_tier, promised_bytes(cost, device_tier, last.variables),
                                  last.device_bytes, last.device_method))
    entry.memory = checks
    for check in checks:
        if check.verdict in ("above", "below"):
            entry.findings.append(
                f"{check.tier} at n={last.sample.n}: measured {check.measured} B, the contract's "
                f"memory expression gives {check.promised:.0f} B ({check.verdict})")


def apply_roofline(entry: Entry, roof: Roofline | None) -> None:
    """The achieved rate at the largest size over the copy's at the same bytes moved."""
    if entry.fit is None or roof is None or entry.unit != "B" or not entry.points:
        return
    top = entry.points[-1]
    copy_rate = roof.rate_at(top.work)
    if copy_rate is None or top.work <= 0:
        return
    entry.roofline_fraction = top.work / top.sample.median_ns * 1e9 / copy_rate
    if not entry.fit.rate_determined:
        return  # overhead, not work, sets that rate: the fraction is reported, never judged
    pct = f"{entry.roofline_fraction:.0%}"
    if entry.roofline_fraction > ROOF_OVER:
        entry.findings.append(
            f"bytes_moved = {entry.work_expr} implies {pct} of the copy roofline at "
            f"n = {top.sample.n}: the hint counts more bytes than the kernel can have moved")
    elif entry.roofline_fraction < ROOF_UNDER:
        entry.findings.append(f"reaches {pct} of the copy roofline at n = {top.sample.n}")


def measure(contracts, backends, options: MeasureOptions, *, progress=None,
            unavailable: dict[str, str] | None = None) -> MeasureRun:
    """Measure every supported contract × backend × dtype and each backend's roofline."""
    import datetime as _dt

    from judge.strategies import input_dtypes

    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    entries: list[Entry] = []
    rooflines: dict[str, Roofline] = {}
    for backend in backends:
        sizes = options.sizes(backend.device)
        rooflines[backend.name] = measure_roofline(
            backend, [4 * n for n in sizes], options.policy, int(options.item_budget_s * 1e9))
        for contract in contracts:
            if not contract.registrable or contract.device != backend.device:
                continue
            for dtype in contract.dtype_fan:
                if options.dtypes is not None and dtype not in options.dtypes:
                    continue
                try:
                    ok = backend.supports(contract, input_dtypes(contract, dtype))
                except Exception as exc:  # noqa: BLE001
                    ok = f"supports() raised {_exc_line(exc)}"
                for path in paths_for(contract):
                    if options.paths is not None and path not in options.paths:
                        continue
                    if ok is not True:
                        entry = Entry(contract, backend, dtype, path, unsupported=str(ok))
                    else:
                        entry = measure_item(contract, backend, dtype, options, path)
                        apply_roofline(entry, rooflines[backend.name])
                    entries.append(entry)
                    if progress is not None:
                        progress(entry)
    return MeasureRun(entries, rooflines, options, started, time.perf_counter() - t0,
                      dict(unavailable or {}))
