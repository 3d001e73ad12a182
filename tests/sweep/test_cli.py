"""``judge sweep`` on the command line: summary, exit codes, kernel and backend selection."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from judge.cli import main


@pytest.fixture()
def run(cache_root, exp_bf16_table, monkeypatch):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(cache_root))

    def invoke(*args):
        return CliRunner().invoke(main, ["sweep", *args], catch_exceptions=False)

    return invoke


def test_sweep_prints_the_summary_and_writes_rows(run, tmp_path):
    out = tmp_path / "out"
    result = run("--kernel", "reference-elementwise.fkc.md::exp", "--dtype", "BF16",
                 "--backend", "numpy", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "65,536 inputs (every bit pattern): PASS" in result.output
    assert "mismatches: NaN 0, inf 0, signed zero 0" in result.output
    assert "time: oracle table" in result.output and "(cached)" in result.output
    rows = json.loads((out / "results.json").read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    (row,) = rows
    assert (row["kernel"], row["backend"], row["cases"], row["verdict"]) == ("exp", "numpy", 65536, "pass")


def test_a_repeated_kernel_name_is_a_usage_error(run):
    result = run("--kernel", "neg", "--dtype", "BF16")
    assert result.exit_code == 2
    assert "ambiguous" in result.output and "reference-elementwise.fkc.md::neg" in result.output


def test_f32_on_a_cpu_backend_is_unsupported_not_silent(run):
    result = run("--kernel", "reference-elementwise.fkc.md::exp", "--dtype", "F32", "--backend", "numpy")
    assert result.exit_code == 0
    assert "unsupported: an exhaustive F32 sweep runs on a GPU backend" in result.output


def test_other_device_needs_cross(run):
    result = run("--kernel", "vulkan-elementwise.fkc.md::exp", "--dtype", "F16", "--backend", "numpy")
    assert result.exit_code == 2 and "--cross" in result.output


def test_unavailable_backend_is_exit_2(run):
    result = run("--kernel", "reference-elementwise.fkc.md::exp", "--dtype", "BF16",
                 "--backend", "no-such-backend")
    assert result.exit_code == 2 and "unknown backend" in result.output


def test_a_pattern_sweeps_every_match_and_names_what_it_leaves_out(run):
    # 'reference-elementwise.fkc.md::ex*' matches exp only; 'reduce.fkc.md::sum*' matches
    # reductions, which cannot be swept: each is named with the reason, none silently dropped.
    result = run("--kernel", "reference-elementwise.fkc.md::ex*", "--kernel", "reduce.fkc.md::sum_reduce*",
                 "--dtype", "BF16", "--backend", "numpy")
    assert result.exit_code == 0, result.output
    assert "reference-elementwise.fkc.md::exp[numpy-BF16]: 65,536 inputs" in result.output
    assert "not swept:" in result.output and \
        "sum_reduce_cpu[numpy-BF16]: SumReduce (reductions) has no exhaustive input set" in result.output
    assert "1 sweeps, 65,536 inputs" not in result.output  # the tally is for several rows only


def test_a_pattern_that_matches_nothing_is_a_usage_error(run):
    result = run("--kernel", "no_such_*", "--dtype", "BF16", "--backend", "numpy")
    assert result.exit_code == 2 and "no contract matches 'no_such_*'" in result.output


@pytest.mark.parametrize("option, value", [("--limit", "0"), ("--chunk-log2", "0"), ("--chunk-log2", "33"),
                                           ("--processes", "0"), ("--grid-size", "1")])
def test_an_out_of_range_count_is_a_usage_error_not_a_traceback(run, option, value):
    result = run("--pairs", "--kernel", "add_elementwise_cpu", "--dtype", "F16", "--backend", "numpy",
                 option, value)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output and "Traceback" not in result.output


PLUGIN = '''
import numpy as np
from judge import Backend, register_backend


class HalfOnly(Backend):
    """An add that works on F16 and whose BF16 path raises, as an adapter's may."""

    name, device = "half-only", "cpu"

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        if call.inputs[0].dtype == "BF16":
            raise TypeError("Cannot interpret 'torch.bfloat16' as a data type")
        a, b = (t.to_array() for t in call.inputs)
        with np.errstate(all="ignore"):
            return [(a.astype(np.float64) + b.astype(np.float64)).astype(a.dtype)]


register_backend(HalfOnly())
'''


def test_a_sweep_that_raises_is_an_error_row_and_the_run_goes_on(run, tmp_path):
    plugin = tmp_path / "half_only.py"
    plugin.write_text(PLUGIN)
    result = run("--pairs", "--kernel", "add_elementwise_cpu", "--dtype", "BF16", "--dtype", "F16",
                 "--plugin", str(plugin), "--backend", "half-only", "--chunk-log2", "16", "--limit", "1",
                 "--array-passes", "--out", str(tmp_path / "out"))
    assert result.exit_code == 1, result.output
    assert "[half-only-BF16]: ERROR: the sweep raised TypeError: Cannot interpret" in result.output
    assert "[half-only-F16]: 65,536 pairs" in result.output and "PASS" in result.output
    rows = json.loads((tmp_path / "out" / "results.json").read_text())
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert sorted((r["dtype"], r["verdict"]) for r in rows) == [("BF16", "error"), ("F16", "pass")]
