"""Each in-place OpKind is its out-of-place twin's result: the oracle row is the twin's, and on
the CPU adapters the in-place call leaves, bit for bit, what the twin's call returns for the same
values (special values, subnormals and random ones, every dtype)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import oracles
from backends.numpy_backend import NumpyBackend
from backends.torch_backend import TorchBackend
from judge.api import TensorArg
from judge.executor import execute
from numerics.formats import get_format
from oracles.families.inplace.table import TWINS

BACKENDS = {"numpy": NumpyBackend, "torch-cpu": lambda: TorchBackend("torch-cpu", "cpu")}
ROOT = Path(__file__).resolve().parents[3]
PARAMS = {
    "add_scalar": {"mul": 1.0, "add": 0.3},
    "mul_scalar": {"mul": -1.7, "add": 0.0},
    "clamp": {"min": -0.5, "max": 2.0},
    "powi": {"exp": 3},
}


@cache
def contracts():
    from judge.suite import load_paths

    loaded = load_paths([ROOT / "suites" / "fuel" / f for f in ("inplace.fkc.md", "reference-elementwise.fkc.md")])
    assert not loaded.errors, loaded.errors
    return {c.kernel: c for c in loaded.contracts}


def _pairs():
    return sorted(k for k in contracts() if k.endswith("_inplace"))


def _values(dtype: str) -> TensorArg:
    fmt = get_format(dtype)
    info = np.finfo(fmt.numpy_dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, float(info.max), -float(info.max),
               float(info.tiny), float(info.smallest_subnormal), -float(info.smallest_subnormal), 88.5, -100.0]
    rng = np.random.default_rng(7)
    values = np.concatenate([special, rng.normal(0, 4, 48)])
    with np.errstate(all="ignore"):
        base = values.astype(fmt.numpy_dtype)
    return TensorArg(base, (base.size,), (1,), 0, dtype)


def test_every_in_place_kind_is_its_twins_row():
    for kind, twin in TWINS.items():
        row, base = oracles.get(kind), oracles.get(twin)
        assert (row.arity, row.exact, dict(row.defaults), row.params) == \
            (base.arity, base.exact, dict(base.defaults), base.params), kind
    assert {c.op_kind for c in contracts().values() if c.kernel.endswith("_inplace")} == set(TWINS)


@pytest.mark.parametrize("backend_name", ["numpy", "torch-cpu"])
@pytest.mark.parametrize("kernel", _pairs())
def test_in_place_leaves_what_the_twin_returns(backend_name, kernel):
    backend = BACKENDS[backend_name]()
    in_place, twin = contracts()[kernel], contracts()[kernel.removesuffix("_inplace")]
    params = PARAMS.get(twin.kernel, {})
    differ = []
    for dtype in in_place.dtype_fan:
        x = _values(dtype)
        a = execute(backend, in_place, (x,), params, repeats=0)
        b = execute(backend, twin, (x,), params, repeats=0)
        if a.outputs is None or b.outputs is None:
            assert [f.check for f in a.findings] == [f.check for f in b.findings], (dtype, a.findings, b.findings)
            continue
        bits = get_format(dtype).bits_dtype
        same = a.outputs[0].view(bits) == b.outputs[0].view(bits)
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            differ.append(f"{dtype}: x={x.base[i]!r} in place {a.outputs[0][i]!r}, out of place {b.outputs[0][i]!r}")
    assert not differ, differ
