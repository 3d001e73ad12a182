"""The ``judge`` command line (SPEC §7). Subcommands live in ``judge/commands/``, one per module.

Exit codes: 0 all conform; 1 a conformance failure or contract error; 2 usage or environment error.
"""

from __future__ import annotations

import importlib

import click

# name -> module in judge.commands exposing a click command called ``command``.
SUBCOMMANDS = ("lint", "list", "show", "audit", "gate", "repro", "sweep", "measure", "merge",
               "baseline", "propose")


class LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand runs (fast ``--help``)."""

    def list_commands(self, ctx):
        return list(SUBCOMMANDS)

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS:
            return None
        try:
            module = importlib.import_module(f"judge.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"judge.commands.{name}":
                return None
            raise
        return module.command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fuel-judge")
def main() -> None:
    """The Judge: differential conformance tests for Fuel kernel contracts."""


if __name__ == "__main__":  # python -m judge.cli
    main()
