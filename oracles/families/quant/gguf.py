"""GGUF block formats, decoded exactly from their definition (ggml's block structs), never from a
dequantizer under test.

A weight W[n, k] is stored row by row, each row as k / B consecutive blocks of B weights; the
whole stream is little-endian bytes (``ggml_half`` scales are IEEE binary16). Per block type
(``LAYOUTS``: weights per block, bytes per block):

- Q4_0 (32, 18): d, 16 bytes of nibbles; w[j] = d·(lo(qs[j]) − 8), w[j+16] = d·(hi(qs[j]) − 8).
- Q4_1 (32, 20): d, m, 16 bytes; w[j] = d·lo(qs[j]) + m, w[j+16] = d·hi(qs[j]) + m.
- Q5_0 (32, 22): d, qh (u32), 16 bytes; fifth bits: bit j of qh for w[j], bit j+16 for w[j+16];
  w = d·(q5 − 16).
- Q5_1 (32, 24): d, m, qh, 16 bytes; w = d·q5 + m.
- Q8_0 (32, 34): d, 32 int8; w[j] = d·qs[j].
- Q8_1 (32, 36): d, s (= d·Σqs, a dot-product aid, unused by dequantization), 32 int8; w = d·qs.
- Q2_K (256, 84): scales[16] (low nibble scale, high nibble min), qs[64], d, dmin. Weight
  e = 128h + 32j + t (h < 2, j < 4, t < 32): q = (qs[32h + t] >> 2j) & 3, sub-block 8h + 2j + t/16,
  w = d·(sc & 15)·q − dmin·(sc >> 4).
- Q3_K (256, 110): hmask[32], qs[64], scales[12] (sixteen 6-bit scales), d. Same e = 128h + 32j
  + t walk; q = ((qs[32h + t] >> 2j) & 3) − (4 unless bit 4h + j of hmask[t] is set); scale j'
  has low 4 bits (scales[j' mod 8] >> 4·(j' div 8)) & 15 and high 2 bits
  (scales[8 + j' mod 4] >> 2·(j' div 4)) & 3; w = d·(scale − 32)·q.
- Q4_K (256, 144): d, dmin, scales[12] (eight 6-bit scale/min pairs), qs[128]. Weight
  e = 64c + 32s + t: q = nibble s (low, high) of qs[32c + t], pair 2c + s; w = d·sc·q − dmin·m.
- Q5_K (256, 176): d, dmin, scales[12], qh[32], qs[128]: as Q4_K plus 16 where bit 2c + s of
  qh[t] is set.
- Q6_K (256, 210): ql[128], qh[64], scales[16] (int8), d. Weight e = 128h + 32r + t: low 4 bits
  nibble (r div 2) of ql[64h + 32(r mod 2) + t], high 2 bits (qh[32h + t] >> 2r) & 3, minus 32;
  w = d·scales[8h + 2r + t/16]·q.
- Q4_K_M is a file-level mix of quantization choices, not a block type: its blocks are Q4_K.

The 6-bit scale/min pair i of Q4_K / Q5_K: i < 4: sc = scales[i] & 63, m = scales[i+4] & 63;
else sc = (scales[i+4] & 15) | (scales[i−4] >> 6) << 4, m = (scales[i+4] >> 4) | (scales[i] >> 6) << 4.

A scale that is NaN or ±inf makes the weights that read it what IEEE arithmetic of the formula
gives (inf·0 is NaN, inf − inf is NaN); every finite weight is an exact dyadic rational.

    >>> block = bytes([0x00, 0x3C]) + bytes([0x98] * 16)  # d = 1.0, nibbles 8 (low) and 9 (high)
    >>> [float(w) for w in dequantize_row(block, "Q4_0", 32)][:1] + [float(dequantize_row(block, "Q4_0", 32)[16])]
    [0.0, 1.0]
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

LAYOUTS = {
    "Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22), "Q5_1": (32, 24),
    "Q8_0": (32, 34), "Q8_1": (32, 36),
    "Q2K": (256, 84), "Q3K": (256, 110), "Q4K": (256, 144), "Q4_K_M": (256, 144),
    "Q5K": (256, 176), "Q6K": (256, 210),
}
QUANT_TYPES = ("Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q8_1", "Q2K", "Q3K", "Q4_K_M", "Q5K", "Q6K")


def half(raw: bytes, at: int) -> Fraction | float:
    """The binary16 at byte offset ``at``: exact rational, or NaN / ±inf."""
    v = struct.unpack_from("<e", raw, at)[0]
    return Fraction(v) if math.isfinite(v) else v


def affine(d, a: int, m=None, b: int = 0):
    """d·a − m·b for scales d, m and integers a, b: exact where the scales are finite, else what
    IEEE arithmetic gives (binary16 scales times small integers are exact in binary64)."""
    if isinstance(d, Fraction) and not isinstance(m, float):
        return d * a - (m * b if m is not None else 0)
    return float(d) * a - (float(m) * b if m is not None else 0.0)


def _legacy(raw: bytes, kind: str) -> list:
    d = half(raw, 0)
    if kind in ("Q8_0", "Q8_1"):
        start = 2 if kind == "Q8_0" else 4
        return [affine(d, q) for q in struct.unpack_from("<32b", raw, start)]
    m = half(raw, 2) if kind in ("Q4_1", "Q5_1") else None
    at = 4 if m is not None else 2
    qh = 0
    if kind in ("Q5_0", "Q5_1"):
        qh = struct.unpack_from("<I", raw, at)[0]
        at += 4
    qs = raw[at:at + 16]
    low = [b & 15 for b in qs] + [b >> 4 for b in qs]
    if kind.startswith("Q5"):
        low = [q | ((qh >> j) & 1) << 4 for j, q in enumerate(low)]
    offset = {"Q4_0": 8, "Q5_0": 16}.get(kind, 0)
    if m is None:
        return [affine(d, q - offset) for q in low]
    return [affine(d, q, m, -1) for q in low]  # d·q + m


def _scale_min_k4(scales: bytes, i: int) -> tuple[int, int]:
    if i < 4:
        return scales[i] & 63, scales[i + 4] & 63
    return ((scales[i + 4] & 15) | (scales[i - 4] >> 6) << 4,
            (scales[i + 4] >> 4) | (scales[i] >> 6) << 4)


def _q2k(raw: bytes) -> list:
    scales, qs = raw[0:16], raw[16:80]
    d, dmin = half(raw, 80), half(raw, 82)
    out = []
    for e in range(256):
        h, j, t = e // 128, (e % 128) // 32, e % 32
        q = (qs[32 * h + t] >> (2 * j)) & 3
        sc = scales[8 * h + 2 * j + t // 16]
        out.append(affine(d, (sc & 15) * q, dmin, sc >> 4))
    return out


def _q3k(raw: bytes) -> list:
    hmask, qs, scales = raw[0:32], raw[32:96], raw[96:108]
    d = half(raw, 108)
    out = []
    for e in range(256):
        h, j, t = e // 128, (e % 128) // 32, e % 32
        q = ((qs[32 * h + t] >> (2 * j)) & 3) - (0 if hmask[t] >> (4 * h + j) & 1 else 4)
        i = 8 * h + 2 * j + t // 16
        low = (scales[i % 8] >> (4 * (i // 8))) & 15
        high = (scales[8 + i % 4] >> (2 * (i // 4))) & 3
        out.append(affine(d, ((low | high << 4) - 32) * q))
    return out


def _q45k(raw: bytes, five: bool) -> list:
    d, dmin = half(raw, 0), half(raw, 2)
    scales = raw[4:16]
    qh, qs = (raw[16:48], raw[48:176]) if five else (b"", raw[16:144])
    out = []
    for e in range(256):
        c, s, t = e // 64, (e % 64) // 32, e % 32
        q = (qs[32 * c + t] >> (4 * s)) & 15
        if five:
            q += 16 * ((qh[t] >> (2 * c + s)) & 1)
        sc, m = _scale_min_k4(scales, 2 * c + s)
        out.append(affine(d, sc * q, dmin, m))
    return out


def _q6k(raw: bytes) -> list:
    ql, qh = raw[0:128], raw[128:192]
    scales = struct.unpack_from("<16b", raw, 192)
    d = half(raw, 208)
    out = []
    for e in range(256):
        h, r, t = e // 128, (e % 128) // 32, e % 32
        low = (ql[64 * h + 32 * (r % 2) + t] >> (4 * (r // 2))) & 15
        high = (qh[32 * h + t] >> (2 * r)) & 3
        out.append(affine(d, scales[8 * h + 2 * r + t // 16] * ((low | high << 4) - 32)))
    return out


def dequantize_block(raw: bytes, kind: str) -> list:
    """The weights of one block, exact (``Fraction``) or IEEE specials (float)."""
    if kind in ("Q2K",):
        return _q2k(raw)
    if kind == "Q3K":
        return _q3k(raw)
    if kind in ("Q4K", "Q4_K_M", "Q5K"):
        return _q45k(raw, kind == "Q5K")
    if kind == "Q6K":
        return _q6k(raw)
    return _legacy(raw, kind)


def dequantize_row(raw: bytes, kind: str, k: int) -> list:
    """The k weights of one row stored as ``raw`` (k / B blocks)."""
    per, size = LAYOUTS[kind]
    out = []
    for b in range(k // per):
        out += dequantize_block(raw[b * size:(b + 1) * size], kind)
    return out


def row_bytes(kind: str, k: int) -> int:
    per, size = LAYOUTS[kind]
    return k // per * size
