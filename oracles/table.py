"""The oracle table: one ``OpDef`` per OpKind."""

from __future__ import annotations

from oracles.opdef import OpDef

TABLE: dict[str, OpDef] = {}
