"""A kernel that aborts, segfaults or hangs ends its own item as an ``error``, never the run."""

from __future__ import annotations

import json

from conftest import CRASHY

# A hang is cut after 8 s: long enough that a loaded CI machine (pytest -n 2 beside the test)
# never cuts a kernel that merely ran slowly.
CRASHERS = {"aborts": "SIGABRT (signal 6)", "segfaults": "SIGSEGV (signal 11)", "hangs": "timed out after 8 s"}
TIMING = ("seconds", "started_at")


def _rows(out) -> dict:
    doc = json.loads((out / "results.json").read_text())
    return {(r["kernel"], r["backend"], r["dtype"]): {k: v for k, v in r.items() if k not in TIMING}
            for r in doc["rows"]}


def _audit(cli, cwd, out, *extra, env=None):
    backends = [f"--backend={b}" for b in ("steady", *CRASHERS)]
    return cli(cwd, "judge", "audit", f"--plugin={CRASHY}", *backends, "--contracts=contracts",
               "--profile=ci", "--timeout=8", f"--out={out}", *extra, env=env)


def test_crashes_and_hangs_become_error_rows_and_the_rest_is_untouched(crashy_suite, cli):
    cwd = crashy_suite.parent
    crashed = _audit(cli, cwd, cwd / "crashed", "-j", "2")
    assert crashed.returncode == 1, crashed.stderr
    calm = _audit(cli, cwd, cwd / "calm", "-j", "1", env={"JUDGE_TEST_CALM": "1"})
    assert calm.returncode == 0, calm.stdout + calm.stderr
    rows, twins = _rows(cwd / "crashed"), _rows(cwd / "calm")
    assert rows.keys() == twins.keys()
    for key, row in rows.items():
        kernel, backend, dtype = key
        if kernel == "sqrt" and backend in CRASHERS:
            assert row["verdict"] == "error", row
            assert CRASHERS[backend] in row["reason"], row["reason"]
            assert row["counterexample"] in row["reason"]
            assert (cwd / "crashed" / "cases" / f"{row['counterexample']}.npz").is_file()
        else:
            assert row == twins[key], key  # as if the crashing kernels had behaved

    # The recorded case replays in a sandbox: the crash is reported, the caller lives on.
    case = rows[("sqrt", "segfaults", "F32")]["counterexample"]
    repro = cli(cwd, "judge", "repro", case, f"--cases={cwd / 'crashed' / 'cases'}", f"--plugin={CRASHY}")
    assert repro.returncode == 1, repro.stdout + repro.stderr
    assert "SIGSEGV" in repro.stdout and "error" in repro.stdout


def test_under_pytest_a_crash_is_a_failed_test_and_the_session_finishes(crashy_suite, cli):
    cwd = crashy_suite.parent
    result = cli(cwd, "pytest", f"--plugin={CRASHY}", "--backend=steady", "--backend=aborts",
                 "--backend=hangs", "--contracts=contracts", "--judge-profile=ci", "--judge-timeout=8",
                 "-n", "2", "-rf")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "8 failed, 28 passed" in out, out[-3000:]
    assert "FAILED contracts/reference-elementwise.fkc.md::sqrt[aborts-F32]" in out
    assert "SIGABRT (signal 6)" in out and "timed out after 8 s" in out


def test_a_backend_whose_probe_aborts_is_unavailable_with_its_last_words(crashy_suite, cli):
    cwd = crashy_suite.parent
    result = cli(cwd, "judge", "audit", f"--plugin={CRASHY}", "--backend=dies-probing",
                 "--contracts=contracts", "--profile=ci", f"--out={cwd / 'out'}")
    assert result.returncode == 2, result.stderr
    assert "dies-probing" in result.stderr and "SIGABRT" in result.stderr
    assert "fake driver: no device node /dev/fake0" in result.stderr
    # Only requested backends are probed: the same plugin audits fine without it.
    result = cli(cwd, "judge", "audit", f"--plugin={CRASHY}", "--backend=steady",
                 "--contracts=contracts", "--profile=ci", f"--out={cwd / 'out'}")
    assert result.returncode == 0, result.stderr


def test_without_a_vulkan_driver_cpu_runs_work_and_vulkan_says_why(make_suite, cli, tmp_path):
    make_suite(tmp_path / "contracts", "reference-elementwise.fkc.md", ("neg",))
    no_driver = {"VK_DRIVER_FILES": str(tmp_path / "nonexistent.json")}
    numpy = cli(tmp_path, "judge", "audit", "--backend=numpy", "--contracts=contracts",
                "--profile=ci", f"--out={tmp_path / 'out'}", env=no_driver)
    assert numpy.returncode == 0, numpy.stderr
    vulkan = cli(tmp_path, "judge", "audit", "--backend=vulkan", "--contracts=contracts",
                 "--profile=ci", f"--out={tmp_path / 'out'}", env=no_driver)
    assert vulkan.returncode == 2, vulkan.stderr
    assert "kompute" in vulkan.stderr and "vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER" in vulkan.stderr
    listed = cli(tmp_path, "judge", "list", "--backend=all", "--contracts=contracts", env=no_driver)
    assert listed.returncode == 0, listed.stderr
    collected = cli(tmp_path, "pytest", "--backend=numpy", "--contracts=contracts", "--judge-profile=ci",
                    env=no_driver)
    assert collected.returncode == 0, collected.stdout + collected.stderr
