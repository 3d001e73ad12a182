"""Coverage of Fuel's dispatch inventory (``judge list --inventory``).

``suites/inventory.toml`` lists every OpKind Fuel's dispatch layer registers and the devices it
registers it on (an entry may carry a ``note`` on why the suite leaves it out). For each one the
Judge says what it has: the suite's contracts for it (by device), whether the oracle defines it,
and which selected backends run one of its contracts; or why it is not covered.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Coverage:
    op_kind: str
    devices: tuple[str, ...]  # where Fuel registers it
    note: str = ""
    contracts: dict[str, list[str]] = field(default_factory=dict)  # device -> kernels
    reference: bool = False
    backends: list[str] = field(default_factory=list)  # selected backends that run a contract

    @property
    def covered(self) -> bool:
        return bool(self.contracts) and self.reference and bool(self.backends)

    @property
    def missing_devices(self) -> list[str]:
        return [d for d in self.devices if d not in self.contracts]

    def why_not(self) -> str:
        if self.covered:
            gaps = self.missing_devices
            return f"no {'/'.join(gaps)} contract yet" if gaps else ""
        reasons = []
        if not self.contracts:
            reasons.append("no contract in the suite")
        if not self.reference:
            reasons.append("no reference in the oracle")
        if self.contracts and not self.backends:
            reasons.append("no selected backend runs it")
        return "; ".join(reasons) + (f" ({self.note})" if self.note else "")


def default_inventory_path() -> Path:
    from judge.contracts import default_suite_path

    return Path(default_suite_path()).parent / "inventory.toml"


def load_inventory(path: str | Path | None = None) -> list[Coverage]:
    path = Path(path) if path else default_inventory_path()
    data = tomllib.loads(path.read_text())
    return [Coverage(e["name"], tuple(e.get("devices", ())), e.get("note", ""))
            for e in data.get("opkind", [])]


def coverage(contracts, backends, path: str | Path | None = None) -> list[Coverage]:
    """The inventory with what the suite, the oracle and ``backends`` have for each OpKind."""
    import oracles
    from judge.strategies import input_dtypes

    rows = load_inventory(path)
    by_kind = {r.op_kind: r for r in rows}
    for name in oracles.op_kinds():
        if name in by_kind:
            by_kind[name].reference = True
    for contract in contracts:
        row = by_kind.get(contract.op_kind or "")
        if row is None or not contract.registrable:
            continue
        row.contracts.setdefault(contract.backend, []).append(contract.kernel)
        for backend in backends:
            if backend.device != contract.device or backend.name in row.backends:
                continue
            for dtype in contract.dtype_fan:
                try:
                    ok = backend.supports(contract, input_dtypes(contract, dtype))
                except Exception:  # noqa: BLE001 - a broken adapter runs nothing
                    ok = False
                if ok is True:
                    row.backends.append(backend.name)
                    break
    return rows
