"""The quant references against independent routes: every GGUF block type decoded by the
reference equals the ``gguf`` package's dequantizer (a separate port of ggml's), NF4 equals
bitsandbytes' own dequantization, and the exact dot products equal MPFR sums at a width that
holds them exactly, rounded once by ``tests/oracle/oracle_mpfr.py``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gmpy2
import numpy as np
import pytest

import oracles
from oracles.families.quant.draw import REGIMES, gguf_weight_bytes
from oracles.families.quant.evaluate import NF4_CODE
from oracles.families.quant.gguf import LAYOUTS, QUANT_TYPES, dequantize_row

GGUF_NAMES = {"Q2K": "Q2_K", "Q3K": "Q3_K", "Q4_K_M": "Q4_K", "Q5K": "Q5_K", "Q6K": "Q6_K"}


@pytest.mark.parametrize("kind", [q for q in QUANT_TYPES if q != "Q8_1"])
def test_gguf_decoding_matches_the_gguf_package(kind):
    import gguf

    qtype = getattr(gguf.GGMLQuantizationType, GGUF_NAMES.get(kind, kind))
    per, _ = LAYOUTS[kind]
    for seed, regime in enumerate(REGIMES):
        raw = gguf_weight_bytes(kind, 2, per, np.random.default_rng(seed), regime)
        mine = np.array([float(w) for w in dequantize_row(raw, kind, 2 * per)], np.float32)
        with np.errstate(invalid="ignore"):  # a NaN or inf scale block, drawn on purpose
            theirs = gguf.quants.dequantize(np.frombuffer(raw, np.uint8), qtype).reshape(-1)
        same = (mine == theirs) | (np.isnan(mine) & np.isnan(theirs))
        assert same.all(), (kind, regime, np.flatnonzero(~same)[:5])


def test_q8_1_is_q8_0_with_an_unused_second_scale():
    raw = gguf_weight_bytes("Q8_1", 1, 32, np.random.default_rng(3), "ordinary")
    as_q8_0 = raw[:2] + raw[4:]
    assert dequantize_row(raw, "Q8_1", 32) == dequantize_row(as_q8_0, "Q8_0", 32)


def test_nf4_code_book_and_nibble_order_match_bitsandbytes():
    import torch
    from bitsandbytes import functional as F

    assert F.get_4bit_type("nf4", device="cpu").tolist() == list(NF4_CODE)
    rng = np.random.default_rng(5)
    n, k, bs = 3, 64, 32
    packed = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
    absmax = rng.uniform(0.1, 3, (n, k // bs)).astype(np.float32)
    state = F.QuantState(absmax=torch.from_numpy(absmax.reshape(-1)), shape=torch.Size([n, k]),
                         code=F.get_4bit_type("nf4", device="cpu"), blocksize=bs, quant_type="nf4",
                         dtype=torch.float32)
    theirs = F.dequantize_4bit(torch.from_numpy(packed.reshape(-1, 1)), state).numpy()
    a = np.eye(k, dtype=np.float32)[None]  # out[0, t, j] = W[j, t]
    params = {"batch": 1, "m": k, "n": n, "k": k, "block_size": bs}
    mine = oracles.get("Nf4Matmul").evaluate([a, packed, absmax], params, ["F32"], {})[0].expected
    assert np.array_equal(mine[0].T, theirs)


def _to_format():
    path = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"
    spec = importlib.util.spec_from_file_location("quant_oracle_mpfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._to_format


@pytest.mark.parametrize("kind", ["Q4_0", "Q5_1", "Q2K", "Q6K"])
def test_qmatmul_dot_products_match_mpfr(kind):
    to_format = _to_format()
    per, _ = LAYOUTS[kind]
    rng = np.random.default_rng(len(kind))
    n, k = 2, per
    raw = gguf_weight_bytes(kind, n, k, rng, "ordinary")
    words = np.frombuffer(raw + bytes(-len(raw) % 4), "<u4")
    a = rng.normal(0, 1, (1, 2, k)).astype(np.float32)
    params = {"quant_type": kind, "batch_count": 1, "m": 2, "n": n, "k": k}
    got = oracles.get("QMatMul").evaluate([a, words], params, ["F32"], {})[0].expected
    w = [dequantize_row(raw[j * len(raw) // n:(j + 1) * len(raw) // n], kind, k) for j in range(n)]
    with gmpy2.context(precision=2000):
        for i in range(2):
            for j in range(n):
                total = sum((gmpy2.mpfr(float(x)) * gmpy2.mpfr(float(v)) for x, v in zip(a[0, i], w[j], strict=True)), gmpy2.mpfr(0))
                assert got[0, i, j].view(np.uint32) == to_format(total, "F32")[0]
