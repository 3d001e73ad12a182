"""Looking at a report page in headless Chromium, offline, the way a reader would.

``look(page)`` loads a copy of the page with a probe script added (the report itself carries
no script) and returns what the browser saw: every section and every plot with its laid-out
size, every resource the page fetched or names outside itself, duplicate element ids, and the
console errors. ``problems(seen, sections=..., plots=...)`` turns that into a list of what is
wrong, empty for a good page. Networking is off: the browser runs in a network namespace of
its own where it may (``unshare -n``), every host resolves to nothing and every request goes to
a dead proxy, so a page that needs the network shows it.

Needs Debian's ``chromium`` package: without it ``find_chromium`` skips and says so,
except under ``CI=true``, where a missing browser is a failure (CI installs it).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--enable-logging=stderr", "--v=0",
    # no network: no name resolves, and any request, even to an IP address, meets a dead proxy
    "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--window-size=1400,1000", "--virtual-time-budget=5000",
)
# Chromium logs page console output as "INFO:CONSOLE..." and uncaught exceptions as "Uncaught".
CONSOLE_LINE = re.compile(r":CONSOLE[:(]|Uncaught")
PROBE_ID = "judge-browser-probe"
PROBE = """<script>
addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const local = (v) => !v || v.startsWith("#") || v.startsWith("data:");
  const seen = {sections: [], plots: [], resources: [], external: [], ids: {}};
  for (const s of document.querySelectorAll("section")) {
    seen.sections.push({id: s.id, title: (s.querySelector("h2") || {}).textContent || "",
                        size: box(s)});
  }
  for (const svg of document.querySelectorAll("svg")) {
    const section = svg.closest("section");
    seen.plots.push({section: section ? section.id : "", cls: svg.getAttribute("class") || "",
                     size: box(svg), marks: svg.querySelectorAll("path, use, line").length,
                     labels: svg.querySelectorAll("text").length});
  }
  seen.resources = performance.getEntriesByType("resource").map((e) => e.name);
  for (const el of document.querySelectorAll("*")) {
    for (const a of ["src", "href", "xlink:href", "srcset", "poster", "data", "action"]) {
      const v = el.getAttribute(a);
      if (!local(v)) seen.external.push(el.tagName + " " + a + "=" + v);
    }
    const style = el.getAttribute("style") || "";
    if (/url\\((?!["']?#)/.test(style)) seen.external.push(el.tagName + " style " + style);
    if (el.id && el.id !== "%(id)s") seen.ids[el.id] = (seen.ids[el.id] || 0) + 1;
  }
  for (const sheet of document.styleSheets) {
    let rules = [];
    try { rules = sheet.cssRules; } catch (e) { seen.external.push("style sheet " + sheet.href); }
    for (const rule of rules) {
      if (/url\\((?!["']?#)|@import/.test(rule.cssText)) seen.external.push("css " + rule.cssText);
    }
  }
  for (const img of document.images) {
    if (!img.complete || !img.naturalWidth) seen.external.push("broken img " + img.src);
  }
  const out = document.createElement("pre");
  out.id = "%(id)s";
  out.textContent = JSON.stringify(seen);
  document.body.append(out);
});
</script>""".replace("%(id)s", PROBE_ID)


@dataclass(frozen=True)
class Seen:
    sections: list[dict]
    plots: list[dict]
    resources: list[str]
    external: list[str]
    duplicate_ids: list[str]
    console: list[str]
    dom: str


def find_chromium() -> Path:
    """The browser; without it the calling test skips and says so (fails under CI=true)."""
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {CHROMIUM} is missing: install it (apt-get install -y "
                        "chromium) so the report is checked in a real browser")
        pytest.skip(f"{CHROMIUM} is not installed (Debian package 'chromium'); "
                    "the browser check of the report did not run")
    return CHROMIUM


def browse(chromium: Path, page: Path, profile: Path, *extra: str) -> tuple[str, list[str]]:
    """Load ``page`` via file://, offline; return (stdout, console error lines)."""
    proc = subprocess.run(
        [*no_network(), str(chromium), *FLAGS, f"--user-data-dir={profile}", *extra,
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, f"chromium exited {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout, [ln for ln in proc.stderr.splitlines() if CONSOLE_LINE.search(ln)]


@cache
def no_network() -> tuple[str, ...]:
    """``unshare -n`` where this user may make a network namespace (root, as in CI): the
    browser then has no network interface but loopback, beside the flags that already cut it."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return (unshare, "-n")
    return ()


def look(chromium: Path, page: Path, work: Path) -> Seen:
    """What Chromium shows of ``page`` (a probed copy is written under ``work``)."""
    text = page.read_text(encoding="utf-8")
    cut = text.rindex("</body>") if "</body>" in text else len(text)
    probed = work / f"probed-{page.name}"
    probed.write_text(text[:cut] + PROBE + text[cut:], encoding="utf-8")
    dom, console = browse(chromium, probed, work / "profile", "--dump-dom")
    found = re.search(rf'<pre id="{PROBE_ID}">(.*?)</pre>', dom, flags=re.S)
    assert found, f"the probe did not run; console: {console}; dom tail: {dom[-500:]}"
    seen = json.loads(html.unescape(found.group(1)))
    return Seen(seen["sections"], seen["plots"], seen["resources"], seen["external"],
                sorted(k for k, n in seen["ids"].items() if n > 1), console, dom)


def problems(seen: Seen, *, sections: list[str], plots: dict[str, int]) -> list[str]:
    """What is wrong with the page: expected ``sections`` (ids) missing or not laid out, a
    section's count of plots other than ``plots[section]`` (0 where not named), a plot drawn
    at zero size or without marks, any fetched or external resource, duplicate ids, console
    errors."""
    out = []
    shown = {s["id"]: s for s in seen.sections}
    for anchor in sections:
        if anchor not in shown:
            out.append(f"section {anchor!r} is missing")
        elif min(shown[anchor]["size"]) <= 0 or not shown[anchor]["title"]:
            out.append(f"section {anchor!r} is not shown (size {shown[anchor]['size']})")
    out += [f"unexpected section {s!r}" for s in shown if s not in sections]
    for anchor in sorted(set(plots) | {p["section"] for p in seen.plots}):
        count = sum(p["section"] == anchor for p in seen.plots)
        if count != plots.get(anchor, 0):
            out.append(f"section {anchor!r} shows {count} plots, expected {plots.get(anchor, 0)}")
    for p in seen.plots:
        if min(p["size"]) <= 0 or not p["marks"] or not p["labels"]:
            out.append(f"a plot in {p['section']!r} is not drawn: {p}")
    out += [f"the page fetched {r}" for r in seen.resources]
    out += [f"the page names something outside itself: {e}" for e in seen.external]
    out += [f"duplicate id {i!r}" for i in seen.duplicate_ids]
    out += [f"console: {line}" for line in seen.console]
    return out
