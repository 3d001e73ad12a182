"""FusedLinear: out = lhs @ rhs + bias, the bias added to the exact dot product before the one
rounding into the output format; its cases.

The dot products are MatMul's (``oracles.families.matmul.evaluate``: integers over the format's
smallest subnormal squared, IEEE specials as the products give them); the bias enters as one
more term, bias·1, so its NaN or infinity combines with the products' the way a sum does, and a
k = 0 product returns the bias itself. Each element carries ``terms`` for SPEC §4's derived
bound with count k + 2 and abs_sum Σ|a·b| + |bias| (+ 2^emin_acc): a sum of k products and the
bias in any order in the accumulator (F32 for BF16/F16). Rounding the product to T before the
bias is added is not within it where the bias cancels much of the product: the product's
rounding error, half an ulp of the product in T, is then many ulps of the result.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.formats import dtype_name
from numerics.long_rows import draw_row, row_values, rows_of
from numerics.rounding import float_spec
from oracles.drawing import operand_span
from oracles.families.matmul import draw as matmul_draw
from oracles.families.matmul.evaluate import _dot, _scaled, matmul_params, rhs_batch_index
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format

MODERATE_K = (16, 64)


def _columns(rhs_raw: list, ri: int, k: int, n: int) -> list[list[float]]:
    return [rhs_raw[ri * k * n + j:(ri + 1) * k * n:n] for j in range(n)]


def evaluate_linear(inputs, params, out_dtypes, rules):
    fmt, s = output_spec(out_dtypes)
    lhs, rhs, bias = (np.asarray(x) for x in inputs[:3])
    lb, rb, m, n, k = matmul_params([lhs.shape, rhs.shape], params or {})
    if tuple(bias.shape) != (n,):
        raise ValueError(f"bias has shape {list(bias.shape)}; expected [{n}]")
    qmin = float_spec(dtype_name(lhs.dtype)).qmin
    acc = acc_format(lhs.dtype)
    a_raw = as_floats(lhs.reshape(-1, m, k)) if lhs.size else []
    b_raw = as_floats(rhs.reshape(-1, k, n)) if rhs.size else []
    bias_raw = as_floats(bias)
    one = _scaled([1.0], qmin)
    b_scaled, bias_scaled = _scaled(b_raw, qmin), _scaled(bias_raw, qmin)
    a_scaled = _scaled(a_raw, qmin)
    results, terms = [], []
    for bi in np.ndindex(*lb):
        li = int(np.ravel_multi_index(bi, lb)) if lb else 0
        ri_idx = tuple(rhs_batch_index(i, ld, r) for i, ld, r in zip(bi, lb, rb, strict=True))
        ri = int(np.ravel_multi_index(ri_idx, rb)) if rb else 0
        cols, cols_raw = _columns(b_scaled, ri, k, n), _columns(b_raw, ri, k, n)
        for i in range(m):
            row = slice((li * m + i) * k, (li * m + i + 1) * k)
            for j in range(n):
                res, term = _dot(a_scaled[row] + [bias_scaled[j]], cols[j] + one,
                                 a_raw[row] + [bias_raw[j]], cols_raw[j] + [1.0],
                                 1 << (-2 * qmin), acc, s)
                results.append(res)
                terms.append(term)
    shape = (*lb, m, n)
    return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=acc)]


def draw_shapes(draw, contract, opdef, budget):
    """MatMul's tied shapes and params, and a bias of n."""
    shapes, params = matmul_draw.draw_shapes(draw, contract, opdef, budget)
    return [*shapes, (params["n"],)], params


@st.composite
def _long_linear(draw, contract, dtypes, longest: int, operand):
    """One or two rows over a long k (or a moderate one: the bound grows with k, a product's
    rounding to T does not): the lhs rows follow a long-row pattern (``numerics.long_rows``), the
    rhs columns are random (so no product is exact in T), and the bias cancels the first row's
    product but for a small rest (a product rounded to T before the bias is added is then off by
    many ulps of the result)."""
    k, pattern, value, rng = draw_row(draw, longest)
    k = draw(st.sampled_from((k, *MODERATE_K)))
    m, n = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    rest = draw(st.sampled_from((1 / 64, 1 / 3, -1 / 8)))
    a = draw(operand_span(operand, contract.inputs[0], dtypes[0], (m, k),
                          lambda count: rows_of(pattern, count, k, dtypes[0], rng, value)))
    b = draw(operand_span(operand, contract.inputs[1], dtypes[1], (k, n),
                          lambda count: row_values("random", count, dtypes[1], rng, 1.0)))
    with np.errstate(all="ignore"):
        product = a[1].astype(np.float64)[0] @ b[1].astype(np.float64)

    def fill(count: int) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.resize(-product * (1 - rest / 16), count).astype(b[1].dtype)

    bias = draw(operand_span(operand, contract.inputs[2], dtypes[2], (n,), fill))
    return [a, b, bias], {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}


def long_case(contract, opdef, dtypes, longest, operand):
    return _long_linear(contract, dtypes, longest, operand)
