"""The report's templates and stylesheet: the top-level ``reports/`` folder (SPEC §2).

A checkout (or an editable install) has it next to the ``judge`` package. A built wheel carries
it as data files under ``share/fuel-judge/reports`` (pyproject's ``data-files``), found through
the installed distribution's file list, so an installed Judge renders the same pages.
Nothing is read before the first page is rendered.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

DISTRIBUTION = "fuel-judge"
INSTALLED = ("share", "fuel-judge", "reports")  # where the wheel's data files put the folder
MARKER = ("templates", "report.html.j2")  # a folder without it is not the report folder


class ReportAssetsMissing(RuntimeError):
    """The ``reports/`` folder is nowhere to be found: the message lists where it was looked for."""


def checkout_dir() -> Path:
    """``reports/`` beside the ``judge`` package (a checkout or an editable install)."""
    return Path(__file__).resolve().parents[2] / "reports"


def installed_dir() -> Path | None:
    """``share/fuel-judge/reports`` of the installed distribution, if it carries one."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        files = distribution(DISTRIBUTION).files or []
    except PackageNotFoundError:
        return None
    tail = (*INSTALLED, *MARKER)
    for file in files:
        if tuple(file.parts[-len(tail):]) == tail:
            return Path(file.locate()).resolve().parents[len(MARKER) - 1]
    return None


def reports_dir(candidates: list[Path | None] | None = None) -> Path:
    """The first of ``candidates`` (default: the checkout's, then the installed copy) holding
    the report templates; ``ReportAssetsMissing`` when none does."""
    if candidates is None:
        candidates = [checkout_dir(), installed_dir()]
    found = [c for c in candidates if c is not None]
    for folder in found:
        if folder.joinpath(*MARKER).is_file():
            return folder
    looked = ", ".join(str(c) for c in found) or "nowhere (no installed distribution)"
    raise ReportAssetsMissing(
        f"the report templates ({'/'.join(MARKER)}) are missing: looked in {looked}. "
        f"Reinstall {DISTRIBUTION} or run from a checkout that has reports/.")


@cache
def environment(folder: Path | None = None):
    """The Jinja2 environment over ``folder`` (default: ``reports_dir()``).

    Autoescaping is on, and an undefined variable is an error, never an empty string: a
    template that names a section nobody filled fails to render instead of hiding it.
    """
    import jinja2

    folder = folder or reports_dir()
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder / "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.globals["static"] = lambda name: _static(folder, name)
    from judge.reports.summary import format_ulp

    env.filters["ulp"] = format_ulp
    return env


def _static(folder: Path, name: str):
    """The text of ``static/NAME``, for inlining (``<style>{{ static("report.css") }}</style>``)."""
    from markupsafe import Markup

    path = folder / "static" / name
    if not path.is_file():
        raise ReportAssetsMissing(f"a template inlines {name!r}, but {path} does not exist")
    return Markup(path.read_text(encoding="utf-8"))


def render(template: str, folder: Path | None = None, **context) -> str:
    """Render ``templates/TEMPLATE`` with ``context``."""
    env = environment(folder)
    return env.get_template(template).render(**context)
