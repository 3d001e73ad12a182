"""The report templates are found in a checkout and in an installed wheel, and a missing one
is an error that says where it was looked for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from judge.reports import assets

REPO = Path(__file__).resolve().parents[2]


def test_a_checkout_renders_from_its_top_level_reports_folder():
    assert assets.reports_dir() == REPO / "reports"
    assert (REPO / "reports" / "templates" / "report.html.j2").is_file()


def test_missing_templates_say_where_they_were_looked_for(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(assets.ReportAssetsMissing) as err:
        assets.reports_dir([tmp_path / "empty", None, tmp_path / "gone"])
    assert f"looked in {tmp_path / 'empty'}, {tmp_path / 'gone'}" in str(err.value)
    assert "templates/report.html.j2" in str(err.value)


def test_an_undefined_template_variable_is_an_error(audit_run):
    import jinja2

    with pytest.raises(jinja2.UndefinedError, match="is undefined"):
        assets.render("report.html.j2", verdicts=[], meta_items=[])


def test_a_wheel_built_from_the_sdist_carries_the_templates_and_renders(tmp_path):
    pytest.importorskip("setuptools", reason="building the wheel needs setuptools")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy(REPO / name, src / name)
    for name in ("judge", "oracles", "backends", "reports"):
        shutil.copytree(REPO / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "out", "*.html"))
    # source distribution first, the wheel from it: the way a release is built
    _run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
          "build_meta.build_sdist(sys.argv[1])", str(tmp_path / "sdist")], cwd=src)
    (sdist,) = (tmp_path / "sdist").glob("fuel_judge-*.tar.gz")
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", str(tmp_path / "dist"), str(sdist)])
    (wheel,) = (tmp_path / "dist").glob("fuel_judge-*.whl")
    shipped = {n.split("/data/share/fuel-judge/", 1)[1]
               for n in zipfile.ZipFile(wheel).namelist() if "/data/share/fuel-judge/" in n}
    wanted = {str(p.relative_to(REPO)) for p in (REPO / "reports").rglob("*")
              if p.is_file() and p.parent.name != "out" and p.suffix != ".html"
              and "__pycache__" not in p.parts}
    assert wanted and wanted <= shipped, f"not in the wheel: {sorted(wanted - shipped)}"

    prefix = tmp_path / "prefix"
    # --ignore-installed: without it pip uninstalls the Judge this test session runs on
    _run([*pip, "install", "--ignore-installed", "--no-deps", "--no-index", "--prefix", str(prefix), str(wheel)])
    site = sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)})
    code = ("import judge.reports.assets as a, judge.reports.html as h, judge.results as r; "
            "print(a.reports_dir()); "
            "assert '<section id=\"scoreboard\">' in h.render_report(r.AuditRun([], [], {}, {}))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": site}
    out = _run([sys.executable, "-c", code], cwd=tmp_path, env=env)
    assert out.strip() == str((prefix / "share" / "fuel-judge" / "reports").resolve())


def _run(cmd: list[str], **kw) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, f"{cmd[:6]} exited {proc.returncode}: {proc.stderr[-3000:]}"
    return proc.stdout
