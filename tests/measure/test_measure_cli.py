"""``judge measure`` end to end on numpy, torch-cpu and kompute (lavapipe in CI), the schema of
measured-cost.json, and ``judge lint`` on a cost expression naming an unknown variable."""

from __future__ import annotations

import copy
import json

import jsonschema
import numpy as np
import pytest
from click.testing import CliRunner
from measure_testing import contract_text

from judge.cli import main
from judge.measure.schema import validate

KERNELS = ("add_elementwise_cpu", "add_elementwise_vulkan")
BACKENDS = ("numpy", "torch-cpu", "kompute")


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("measure")
    args = ["measure", "--out", str(out), "--sizes", "8:17", "--budget", "4", "--dtype", "F32"]
    for b in BACKENDS:
        args += ["--backend", b]
    for k in KERNELS:
        args += ["--kernel", k]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, json.loads((out / "measured-cost.json").read_text()), result.output


def test_measured_cost_file_follows_the_schema(measured):
    _, doc, _ = measured
    validate(doc)
    assert {e["backend"] for e in doc["entries"]} == set(BACKENDS)
    assert all(e["status"] == "measured" and e["dtype"] == "F32" for e in doc["entries"])
    assert {"numpy", "torch", "kp"} <= set(doc["libraries"])


def test_each_accepted_fast_path_is_measured_on_its_own(measured):
    """The Vulkan add accepts strided and stride-0 operands: three entries per backend; the CPU
    one wants them contiguous: one."""
    _, doc, _ = measured
    paths = {(e["kernel"], e["backend"]): set() for e in doc["entries"]}
    for e in doc["entries"]:
        paths[(e["kernel"], e["backend"])].add(e["path"])
    assert paths[("add_elementwise_vulkan", "kompute")] == {"contiguous", "strided", "broadcast"}
    assert paths[("add_elementwise_cpu", "numpy")] == {"contiguous"}


def test_costs_are_keyed_by_revision_and_device(measured):
    _, doc, _ = measured
    for e in doc["entries"]:
        (key,) = [k for k in doc["costs"][e["revision"]] if k.startswith(e["backend"] + "@")]
        cost = doc["costs"][e["revision"]][key]["F32"]
        if e["path"] != "contiguous":
            cost = cost["paths"][e["path"]]
        assert cost["kernel"] == e["kernel"] and cost["overhead_ns"] == e["overhead_ns"] > 0
        assert cost["sizes"] == [256, 131072] and cost["work_expr"] == "3 * n * dtype_bytes"
        roof = doc["devices"][key]["roofline"]
        assert roof["bytes_per_s"] > 0 and len(roof["sizes"]) == 10
        top = e["sizes"][-1]
        assert e["largest_rate_per_s"] == pytest.approx(top["work"] / top["median_ns"] * 1e9)
        moved = np.array([2.0 * s["bytes"] for s in roof["sizes"]])
        rates = moved / np.array([s["median_ns"] for s in roof["sizes"]]) * 1e9
        copy_rate = np.exp(np.interp(np.log(top["work"]), np.log(moved), np.log(rates)))
        assert e["roofline_fraction"] == pytest.approx(e["largest_rate_per_s"] / copy_rate)


def test_each_backend_is_timed_its_own_way(measured):
    _, doc, _ = measured
    clocks = {e["backend"]: e["clock"] for e in doc["entries"]}
    assert clocks == {"numpy": "run_perf_counter_ns", "torch-cpu": "perf_counter_ns",
                      "kompute": "vulkan_fence_wall"}
    sources = {d["backend"]: d["roofline"]["source"] for d in doc["devices"].values()}
    assert sources == {"numpy": "numpy.copyto", "torch-cpu": "backend", "kompute": "backend"}


def test_outputs_and_progress(measured):
    out, doc, output = measured
    assert "measured-cost.json" in output and (out / "cost.html").is_file()
    page = (out / "cost.html").read_text()
    assert page.count('<svg class="plot cost-plot"') == 3 + 2  # a roofline per backend, time per kernel
    for e in doc["entries"]:
        sizes = e["sizes"]
        assert [s["n"] for s in sizes] == [2**k for k in range(8, 18)]
        assert all(s["reps"] >= 10 and s["q1_ns"] <= s["median_ns"] <= s["q3_ns"] for s in sizes)
        assert {m["tier"] for m in e["memory"]} == {"host_bytes"}


@pytest.mark.parametrize("breakage", ["format", "overhead", "status", "sizes"])
def test_the_schema_rejects_a_broken_file(measured, breakage):
    _, doc, _ = measured
    bad = copy.deepcopy(doc)
    entry = bad["entries"][0]
    if breakage == "format":
        bad["format"] = "judge-measured-cost/0"
    elif breakage == "overhead":
        cost = next(iter(next(iter(bad["costs"].values())).values()))
        del next(iter(cost.values()))["overhead_ns"]
    elif breakage == "status":
        entry["status"] = "fine"
    else:
        entry["sizes"] = entry["sizes"][:1]
    with pytest.raises(jsonschema.ValidationError):
        validate(bad)


def test_bad_options_are_usage_errors(tmp_path):
    runner = CliRunner()
    bad_range = runner.invoke(main, ["measure", "--sizes", "9:4", "--out", str(tmp_path)])
    assert bad_range.exit_code == 2 and "9:4" in bad_range.output
    no_kernel = runner.invoke(main, ["measure", "--backend", "numpy", "--kernel", "no_such_*",
                                     "--out", str(tmp_path)])
    assert no_kernel.exit_code == 2 and "no_such_*" in no_kernel.output


def test_lint_names_an_unknown_variable_in_bytes_moved(tmp_path):
    path = tmp_path / "bad-cost.fkc.md"
    path.write_text(contract_text(kernel="bad_cost", bytes_moved="2 * m * dtype_bytes"))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1)
                if text.strip().startswith("bytes_moved:"))
    result = CliRunner().invoke(main, ["lint", str(path)])
    assert result.exit_code == 1
    assert f"bad-cost.fkc.md:{line} bad_cost cost.bytes_moved: unknown variable 'm'" in result.output


BROKEN_PLUGIN = '''
import judge


class Raises(judge.Backend):
    name = "measure-raises"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        raise RuntimeError("no kernel here")


judge.register_backend(Raises())
'''


def test_a_kernel_that_raises_is_reported_and_fails_the_run(tmp_path):
    plugin = tmp_path / "raises_plugin.py"
    plugin.write_text(BROKEN_PLUGIN)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [
        "measure", "--plugin", str(plugin), "--backend", "measure-raises", "--kernel", "neg",
        "--dtype", "F32", "--sizes", "4:6", "--budget", "1", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "neg[measure-raises-F32]: not measured: at n=16: RuntimeError: no kernel here" \
        in result.output
    doc = json.loads((out / "measured-cost.json").read_text())
    validate(doc)
    (entry,) = doc["entries"]
    assert entry["status"] == "error" and "no kernel here" in entry["reason"]
    assert doc["costs"] == {} and "not measured: at n=16" in (out / "cost.html").read_text()
