"""The quant family: matrix products against stored quantized weights, out[b, i, j] =
Σ_t A[b, i, t]·W[j, t], with W dequantized exactly from its definition.

- QMatMul: GGUF blocks (Q4_0 ... Q6_K, ``oracles.families.quant.gguf``) in a U32 word stream;
- Nf4Matmul: bitsandbytes' NF4 code book, two indices per byte, a binary32 absmax per block.

Exact rational dot products rounded once, held to the derived bound of a dequantize-then-dot
kernel with an F32 accumulator (``oracles.families.quant.evaluate``). Contracts name the output
shape ``quant_matmul(activations, weight)``: [batch, m, n]. Cases: ``...quant.draw``.

    >>> import numpy as np, oracles
    >>> a = np.ones((1, 1, 32), np.float32)
    >>> w = np.frombuffer(bytes([0x00, 0x3C]) + bytes([0x99] * 16) + bytes(2), "<u4")  # d = 1, q = 9 - 8
    >>> params = {"quant_type": "Q4_0", "batch_count": 1, "m": 1, "n": 1, "k": 32}
    >>> oracles.get("QMatMul").evaluate([a, w], params, ["F32"], {})[0].expected
    array([[[32.]]], dtype=float32)
"""

from __future__ import annotations

from oracles.families.quant.refuse import break_rule
from oracles.family import Family, OutputShapeRule
from oracles.opdef import OpDef

DOT = {"nan": "propagate", "order": "free"}
QMATMUL_DOMAIN = ("out[b, i, j] = Σ_t A[b, i, t]·W[j, t]; W[n, k] as GGUF blocks of quant_type, row "
                  "by row, little-endian in U32 words; Q4_K_M blocks are Q4_K; a NaN or infinite "
                  "scale gives the weights IEEE arithmetic gives")
NF4_DOMAIN = ("out[b, i, j] = Σ_t A[b, i, t]·code[q(j, t)]·absmax[j, t / block_size]; q(j, t) is the "
              "high nibble of w_packed[j, t/2] for even t, the low nibble for odd t")


def _qmatmul(inputs, params, out_dtypes, rules):
    from oracles.families.quant.evaluate import evaluate_qmatmul

    return evaluate_qmatmul(inputs, params, out_dtypes, rules)


def _nf4(inputs, params, out_dtypes, rules):
    from oracles.families.quant.evaluate import evaluate_nf4

    return evaluate_nf4(inputs, params, out_dtypes, rules)


def _out_shape(shapes, params):
    from oracles.families.quant.evaluate import quant_out_shape

    return quant_out_shape(shapes, params)


def rows() -> list[OpDef]:
    return [
        OpDef("QMatMul", 2, False, DOT, _qmatmul, domain=QMATMUL_DOMAIN, reduction_bound="sum"),
        OpDef("Nf4Matmul", 3, False, DOT, _nf4, domain=NF4_DOMAIN, reduction_bound="sum"),
    ]


def draw_shapes(draw, contract, opdef, budget):
    from oracles.families.quant.draw import draw_shapes as draw_quant

    return draw_quant(draw, contract, opdef, budget)


def draw_input(opdef, i, dtype, shapes, params):
    from oracles.families.quant.draw import draw_input as draw_quant_input

    return draw_quant_input(opdef, i, dtype, shapes, params)


FAMILY = Family(
    name="quant",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    shape_rules={"quant_matmul": OutputShapeRule((2, 2), _out_shape)},
    break_rule=break_rule,
)
