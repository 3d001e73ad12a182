"""Cases: one generated kernel call (``Case``, as the strategies draw it) and its record
(``CaseRecord``), saved as ``cases/<case_id>.npz`` for ``judge repro``.

A record holds everything needed to rebuild the exact call: each input's base buffer (as raw bits),
shape, element strides and offset, the op params, and which contract/backend/dtype it ran under.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judge.api import TensorArg
from numerics.formats import get_format

if TYPE_CHECKING:  # pragma: no cover
    from judge.layouts import LayoutRecipe


@dataclass(frozen=True)
class Case:
    """One generated call: its operands as views, their logical values, layouts and op params."""

    dtype: str  # the item's dtype
    inputs: tuple[TensorArg, ...]  # as generated: possibly awkward views
    values: tuple[np.ndarray, ...]  # each input's logical values, contiguous
    recipes: tuple[LayoutRecipe, ...]
    params: dict[str, Any] = field(default_factory=dict)
    long: bool = False  # one of its family's long cases (never a target of the search)

    def describe(self, names: tuple[str, ...]) -> str:
        lines = []
        for name, t, r in zip(names, self.inputs, self.recipes, strict=True):
            lines.append(
                f"  {name}: {t.dtype} shape={list(t.shape)} strides={list(t.strides)} "
                f"offset={t.offset} ({r.describe()})"
            )
        if self.params:
            lines.append(f"  params: {self.params}")
        return "\n".join(lines)


@dataclass(frozen=True)
class CaseRecord:
    kernel: str
    file: str
    backend: str
    dtype: str  # the item's dtype (the contract's dtype fan entry)
    inputs: tuple[TensorArg, ...]
    params: dict[str, Any]
    check: str = ""  # the check that failed ("" for a passing case)
    message: str = ""  # the failure message
    seed: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def case_id(self) -> str:
        """Stable id: kernel, backend, dtype and a digest of the exact inputs and params."""
        h = hashlib.sha256()
        h.update(json.dumps([self.kernel, self.backend, self.dtype, _jsonable(self.params)]).encode())
        for t in self.inputs:
            h.update(json.dumps([t.shape, t.strides, t.offset, t.dtype]).encode())
            h.update(np.ascontiguousarray(t.base).view(np.uint8).tobytes())
        return f"{self.kernel}-{self.backend}-{self.dtype}-{h.hexdigest()[:12]}"

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.case_id}.npz"
        path.write_bytes(self.to_bytes())
        return path

    def to_bytes(self) -> bytes:
        """The ``.npz`` file content (what ``save`` writes)."""
        meta = {
            "kernel": self.kernel,
            "file": self.file,
            "backend": self.backend,
            "dtype": self.dtype,
            "params": _jsonable(self.params),
            "check": self.check,
            "message": self.message,
            "seed": self.seed,
            "extra": _jsonable(self.extra),
            "inputs": [
                {"shape": list(t.shape), "strides": list(t.strides), "offset": t.offset, "dtype": t.dtype}
                for t in self.inputs
            ],
        }
        arrays = {
            f"base{i}": np.ascontiguousarray(t.base).view(get_format(t.dtype).bits_dtype)
            for i, t in enumerate(self.inputs)
        }
        buf = io.BytesIO()
        np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
        return buf.getvalue()

    @classmethod
    def load(cls, path: str | Path) -> CaseRecord:
        return cls.from_bytes(Path(path).read_bytes())

    @classmethod
    def from_bytes(cls, content: bytes) -> CaseRecord:
        with np.load(io.BytesIO(content)) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            inputs = []
            for i, spec in enumerate(meta["inputs"]):
                fmt = get_format(spec["dtype"])
                base = data[f"base{i}"].view(fmt.numpy_dtype).copy()
                inputs.append(
                    TensorArg(base, tuple(spec["shape"]), tuple(spec["strides"]), spec["offset"], spec["dtype"])
                )
        return cls(
            kernel=meta["kernel"],
            file=meta["file"],
            backend=meta["backend"],
            dtype=meta["dtype"],
            inputs=tuple(inputs),
            params=meta["params"],
            check=meta["check"],
            message=meta["message"],
            seed=meta["seed"],
            extra=meta.get("extra", {}),
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
