"""report.html in a real browser: headless Chromium loads it offline, with no console errors,
and renders the scoreboard and the histograms.

Needs Debian's ``chromium`` package. Without it these tests skip and say so, except under
``CI=true``, where a missing browser is a failure (CI installs it).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from judge.reports import write_audit

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--enable-logging=stderr", "--v=0",
)
# Chromium logs page console output as "INFO:CONSOLE..." and uncaught exceptions as "Uncaught".
CONSOLE_LINE = re.compile(r":CONSOLE[:(]|Uncaught")


@pytest.fixture
def chromium() -> Path:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {CHROMIUM} is missing: install it (apt-get install -y "
                        "chromium) so the report is checked in a real browser")
        pytest.skip(f"{CHROMIUM} is not installed (Debian package 'chromium'); "
                    "the browser check of report.html did not run")
    return CHROMIUM


def browse(chromium: Path, page: Path, profile: Path, *extra: str) -> tuple[str, list[str]]:
    """Load ``page`` via file://; return (stdout, console error lines)."""
    proc = subprocess.run(
        [str(chromium), *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, f"chromium exited {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout, [ln for ln in proc.stderr.splitlines() if CONSOLE_LINE.search(ln)]


def test_the_console_check_catches_script_errors(chromium, tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<p>x</p><script>console.error("c1"); throw new Error("u1")</script>')
    _, errors = browse(chromium, page, tmp_path / "profile", "--dump-dom")
    assert any('"c1"' in e for e in errors) and any("Uncaught Error: u1" in e for e in errors)


def test_report_renders_without_console_errors(chromium, audit_run, tmp_path):
    page = write_audit(audit_run, tmp_path / "audit")["report.html"]
    dom, errors = browse(chromium, page, tmp_path / "profile", "--dump-dom")
    assert errors == []
    assert '<table class="scoreboard">' in dom
    assert dom.count('<svg class="hist"') == 2
    assert "exp_f32-torch-cpu-F32" in dom


def test_report_screenshot(chromium, audit_run, tmp_path):
    page = write_audit(audit_run, tmp_path / "audit")["report.html"]
    shot = tmp_path / "report.png"
    _, errors = browse(chromium, page, tmp_path / "profile", f"--screenshot={shot}",
                       "--window-size=1400,2000")
    assert errors == []
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1400, 2000)
    assert len(data) > 20_000, "a blank page compresses to a few kB; the report is not blank"
