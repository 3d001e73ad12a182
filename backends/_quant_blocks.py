"""Dequantization of stored weights in numpy, as a Fuel CPU wrapper does it before its F32 dot
products: GGUF blocks (ggml's ``dequantize_row_*``, binary32 arithmetic on the binary16 scales)
and bitsandbytes' NF4 (code value times absmax in binary32). Shared by the numpy and torch
adapters (``_xp_quant``, ``_torch_quant``); neither library has a kernel of its own for these
formats.

    >>> raw = np.frombuffer(bytes([0x00, 0x3C]) + bytes([0x99] * 16), np.uint8)
    >>> gguf_rows(raw, "Q4_0", 1, 32)[0, :2]
    array([1., 1.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

BLOCKS = {"Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22), "Q5_1": (32, 24), "Q8_0": (32, 34),
          "Q8_1": (32, 36), "Q2K": (256, 84), "Q3K": (256, 110), "Q4_K_M": (256, 144),
          "Q5K": (256, 176), "Q6K": (256, 210)}
NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
                -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
                0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
                0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0], np.float32)
F32 = np.float32


def _half(blocks: np.ndarray, at: int) -> np.ndarray:
    return blocks[:, at:at + 2].copy().view("<f2")[:, :1].astype(F32)


def _nibbles(qs: np.ndarray) -> np.ndarray:
    """16 bytes → 32 values: the low nibbles, then the high ones."""
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int32)


def _legacy(b: np.ndarray, kind: str, half=_half) -> np.ndarray:
    d = half(b, 0)
    if kind in ("Q8_0", "Q8_1"):
        at = 2 if kind == "Q8_0" else 4
        return d * b[:, at:at + 32].copy().view(np.int8).astype(F32)
    m = half(b, 2) if kind in ("Q4_1", "Q5_1") else None
    at = 2 if m is None else 4
    q = _nibbles(b[:, at + (4 if kind.startswith("Q5") else 0):][:, :16])
    if kind.startswith("Q5"):
        qh = b[:, at:at + 4].copy().view("<u4").astype(np.int64)
        q = q | (((qh >> np.arange(32)) & 1) << 4).astype(np.int32)
    if m is not None:
        return d * q.astype(F32) + m
    return d * (q - (8 if kind == "Q4_0" else 16)).astype(F32)


_E = np.arange(256)
_H, _J, _T = _E // 128, (_E % 128) // 32, _E % 32


def _q2k(b, half=_half):
    d, dmin = half(b, 80), half(b, 82)
    q = (b[:, 16 + 32 * _H + _T] >> (2 * _J)) & 3
    sc = b[:, 8 * _H + 2 * _J + _T // 16]
    return (d * (sc & 15).astype(F32)) * q.astype(F32) - dmin * (sc >> 4).astype(F32)


def _q3k(b, half=_half):
    d = half(b, 108)
    hm = (b[:, _T] >> (4 * _H + _J)) & 1
    q = ((b[:, 32 + 32 * _H + _T] >> (2 * _J)) & 3).astype(np.int32) - np.where(hm == 1, 0, 4)
    i = 8 * _H + 2 * _J + _T // 16
    scales = b[:, 96:108]
    six = ((scales[:, i % 8] >> (4 * (i // 8))) & 15) | (((scales[:, 8 + i % 4] >> (2 * (i // 4))) & 3) << 4)
    return (d * (six.astype(np.int32) - 32).astype(F32)) * q.astype(F32)


def _scale_min(scales: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    if i < 4:
        return scales[:, i] & 63, scales[:, i + 4] & 63
    return ((scales[:, i + 4] & 15) | ((scales[:, i - 4] >> 6) << 4),
            (scales[:, i + 4] >> 4) | ((scales[:, i] >> 6) << 4))


def _q45k(b, five: bool, half=_half):
    d, dmin = half(b, 0), half(b, 2)
    qs = b[:, 48:176] if five else b[:, 16:144]
    out = np.empty((b.shape[0], 256), F32)
    for c in range(4):
        for s in range(2):
            sc, m = _scale_min(b[:, 4:16], 2 * c + s)
            q = ((qs[:, 32 * c:32 * c + 32] >> (4 * s)) & 15).astype(F32)
            if five:
                q += 16 * ((b[:, 16:48] >> (2 * c + s)) & 1).astype(F32)
            out[:, 64 * c + 32 * s:64 * c + 32 * s + 32] = (d * sc[:, None].astype(F32)) * q - dmin * m[:, None].astype(F32)
    return out


def _q6k(b, half=_half):
    d = half(b, 208)
    r = _J  # quarter of the 128-weight half
    low = (b[:, 64 * _H + 32 * (r % 2) + _T] >> (4 * (r // 2))) & 15
    high = (b[:, 128 + 32 * _H + _T] >> (2 * r)) & 3
    q = (low | (high << 4)).astype(np.int32) - 32
    sc = b[:, 192:208].copy().view(np.int8)[:, 8 * _H + 2 * r + _T // 16].astype(F32)
    return (d * sc) * q.astype(F32)


def gguf_rows(raw: np.ndarray, kind: str, n: int, k: int, half=_half) -> np.ndarray:
    """W[n, k] in binary32 from the byte stream ``raw`` of its GGUF blocks; ``half(blocks, at)``
    reads the scales (a test backend swaps it to show a misread scale being caught)."""
    per, size = BLOCKS[kind]
    blocks = np.asarray(raw, np.uint8)[: n * k // per * size].reshape(-1, size)
    with np.errstate(all="ignore"):
        if kind == "Q2K":
            w = _q2k(blocks, half)
        elif kind == "Q3K":
            w = _q3k(blocks, half)
        elif kind in ("Q4_K_M", "Q5K"):
            w = _q45k(blocks, kind == "Q5K", half)
        elif kind == "Q6K":
            w = _q6k(blocks, half)
        else:
            w = _legacy(blocks, kind, half)
    return np.asarray(w, F32).reshape(n, k)


def nf4_rows(packed: np.ndarray, absmax: np.ndarray, n: int, k: int, block_size: int) -> np.ndarray:
    """W[n, k] in binary32: code[nibble] · absmax of its block, the high nibble first."""
    packed = np.asarray(packed, np.uint8).reshape(n, k // 2)
    idx = np.stack([packed >> 4, packed & 15], axis=-1).reshape(n, k)
    scale = np.repeat(np.asarray(absmax, F32).reshape(n, k // block_size), block_size, axis=1)
    with np.errstate(all="ignore"):
        return NF4[idx] * scale
