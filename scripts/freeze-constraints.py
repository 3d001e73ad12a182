"""Write constraints.txt: every distribution the test run installs, pinned to what is installed.

Walks the requirements of fuel-judge with its extras (torch, test, audit, lint, vulkan) through
the installed distributions' metadata, so the file holds exactly the closure a fresh machine
needs, at the versions the known divergences were recorded against. Run it after upgrading on
purpose, re-run the audits, and commit both together:

    python scripts/freeze-constraints.py > constraints.txt
"""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

EXTRAS = ("torch", "test", "audit", "lint", "vulkan")


def closure(root: str, extras: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    todo = [(root, extras)]
    while todo:
        name, wanted = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            print(f"# not installed: {name}", file=sys.stderr)
            continue
        key = canonicalize_name(dist.metadata["Name"])
        if key in found and not wanted:
            continue
        found[key] = dist.version
        for text in dist.requires or []:
            req = Requirement(text)
            env = default_environment()
            if req.marker is None or any(req.marker.evaluate({**env, "extra": e}) for e in ("", *wanted)):
                if canonicalize_name(req.name) not in found:
                    todo.append((req.name, tuple(req.extras)))
    found.pop(canonicalize_name(root), None)
    return found


def main() -> None:
    pins = closure("fuel-judge", EXTRAS)
    print("# The test environment, pinned (scripts/freeze-constraints.py writes it; bootstrap installs")
    print("# with it). The known divergences in suites/expectations.toml were recorded against these.")
    for name in sorted(pins):
        # A local label (+cpu) names where a build came from, not the release: 2.13.0 matches it.
        print(f"{name}=={pins[name].split('+')[0]}")


if __name__ == "__main__":
    main()
