"""Long sequences (hundreds of steps) against the derived bound: an SSD computed in chunks (the
numpy adapter, mamba_ssm's ssd_minimal_discrete form) and sequentially (the mini backend) both lie
within the bound the oracle derives, for several chunk sizes; so does a sequential SelectiveScan
with softplus; a scan whose state is stored in BF16 between steps does not."""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import oracles
from backends._xp_scan import XP_SCAN
from numerics.formats import get_format
from numerics.ulp import as_fraction, ulp_of

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "broken_scan.py"
LENGTH = 384


def _plugin():
    spec = importlib.util.spec_from_file_location("broken_scan_bound", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _violations(out, observed: np.ndarray, fmt: str) -> int:
    """Elements beyond (count − 1)·u_acc·abs_sum + ulp(exact): SPEC §4's reduction bound."""
    u = Fraction(1, 1 << get_format(out.acc_format).precision)
    bad = 0
    for obs, exact, (count, abs_sum) in zip(observed.astype(np.float64).ravel().tolist(),
                                            out.exact.ravel().tolist(), out.terms.ravel().tolist(),
                                            strict=True):
        exact = as_fraction(exact)
        bad += abs(Fraction(obs) - exact) > (count - 1) * u * abs_sum + ulp_of(exact, fmt)
    return bad


def _ssd_case(fmt: str, seed: int):
    rng = np.random.default_rng(seed)
    t = get_format(fmt).numpy_dtype
    shape = (1, LENGTH, 1, 2)
    x = rng.standard_normal(shape)
    dt = rng.uniform(2.0**-8, 2.0**-5, shape[:3])
    a = -rng.uniform(0.25, 2.0, 1)
    b, c = rng.uniform(0.5, 1.5, (1, LENGTH, 1, 2)), rng.uniform(0.5, 1.5, (1, LENGTH, 1, 2))
    return [v.astype(t) for v in (x, dt, a, b, c)]


def _ssd_params(chunk: int) -> dict:
    return {"batch": 1, "seqlen": LENGTH, "heads": 1, "head_dim": 2, "state_dim": 2, "chunk_size": chunk}


def _chunked(inputs, params):
    """The numpy adapter's ssd_minimal_discrete, in the accumulator the contract names."""
    acc = np.float64 if inputs[0].dtype == np.float64 else np.float32
    env = SimpleNamespace(xp=np, acc=acc, op=SimpleNamespace(params=params))
    return XP_SCAN["SsdChunkScan"](env, inputs).astype(inputs[0].dtype)


@pytest.mark.parametrize("fmt", ["F32", "BF16", "F64"])
def test_chunked_and_sequential_ssd_lie_within_the_derived_bound(fmt):
    inputs = _ssd_case(fmt, 1)
    mini = _plugin().MiniScan()
    sequential = mini.ssd(*(v.astype(mini.acc(inputs[0])) for v in inputs)).astype(inputs[0].dtype)
    for chunk in (16, 64, 128):
        out = oracles.evaluate("SsdChunkScan", inputs, _ssd_params(chunk), [fmt], {})[0]
        chunked = _chunked(inputs, _ssd_params(chunk))
        assert _violations(out, chunked, fmt) == 0, f"chunks of {chunk}"
        assert _violations(out, sequential, fmt) == 0
        if fmt == "F32":  # the two arrangements really differ, each within the bound
            assert (chunked != sequential).any()


def test_a_bf16_state_breaks_the_bound_over_a_long_sequence():
    inputs = _ssd_case("F32", 2)
    out = oracles.evaluate("SsdChunkScan", inputs, _ssd_params(64), ["F32"], {})[0]
    broken = _plugin().Bf16State()
    observed = broken.ssd(*inputs).astype(np.float32)
    assert _violations(out, observed, "F32") > LENGTH


@pytest.mark.parametrize("softplus", [False, True])
def test_a_long_selective_scan_lies_within_the_bound_and_a_bf16_state_does_not(softplus):
    rng = np.random.default_rng(4)
    u = rng.standard_normal((1, LENGTH, 2)).astype(np.float32)
    delta = (rng.uniform(-7, -4, (1, LENGTH, 2)) if softplus else rng.uniform(2.0**-8, 2.0**-5, (1, LENGTH, 2)))
    a = -rng.uniform(0.25, 2.0, (2, 2))
    b, c = rng.uniform(0.5, 1.5, (1, LENGTH, 2)), rng.uniform(0.5, 1.5, (1, LENGTH, 2))
    inputs = [v.astype(np.float32) for v in (u, delta, a, b, c)]
    params = {"batch": 1, "seqlen": LENGTH, "dim": 2, "dstate": 2, "delta_softplus": softplus}
    out = oracles.evaluate("SelectiveScan", inputs, params, ["F32"], {})[0]
    plugin = _plugin()
    good = plugin.MiniScan().selective(*inputs, softplus=softplus)
    assert _violations(out, good, "F32") == 0
    env = SimpleNamespace(xp=np, acc=np.float32, op=SimpleNamespace(params=params))
    assert _violations(out, XP_SCAN["SelectiveScan"](env, inputs), "F32") == 0
    assert _violations(out, plugin.Bf16State().selective(*inputs, softplus=softplus), "F32") > LENGTH
