"""The kompute (Vulkan) mixed-precision MatMul kernels (shaders/matmul_mixed.comp), one per
[lhs, rhs, out] key, driven directly: batched GQA products of exact values bit for bit, the
round-to-nearest-even store of a 16-bit output, 16-bit subnormal operands and results, odd
element counts, and refusal of a key with no kernel."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.executor import poison_output
from numerics.formats import get_format

MIXED = "matmul-mixed-vulkan.fkc.md"
KEYS = {"matmul_f32_bf16_b": ("F32", "BF16", "F32"), "matmul_bf16_bf16_f32": ("BF16", "BF16", "F32"),
        "matmul_bf16_bf16_bf16": ("BF16", "BF16", "BF16"), "matmul_f16_f16_f16": ("F16", "F16", "F16"),
        "matmul_f16_f16_f32": ("F16", "F16", "F32")}


def _contract(kernel: str):
    from judge.suite import load_paths

    return next(c for c in load_paths(None).registrable if c.kernel == kernel)


def _tensor(values, dtype: str) -> TensorArg:
    a = np.asarray(values, dtype=np.float64).astype(get_format(dtype).numpy_dtype)
    return TensorArg(a.reshape(-1).copy(), a.shape, contiguous_strides(a.shape), 0, dtype)


def run(backend, kernel: str, lhs, rhs, lb=(), rb=()) -> np.ndarray:
    l_dt, r_dt, o_dt = KEYS[kernel]
    a, b = _tensor(lhs, l_dt), _tensor(rhs, r_dt)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    shape = (*lb, m, n)
    params = {"lhs_batch_dims": list(lb), "rhs_batch_dims": list(rb), "m": m, "n": n, "k": k}
    call = KernelCall([a, b], params, [poison_output(shape, o_dt)], [o_dt])
    (out,) = backend.run(_contract(kernel), call)
    assert out.shape == shape and out.dtype == get_format(o_dt).numpy_dtype
    return out


def _bits(x: np.ndarray) -> np.ndarray:
    return x.view(get_format({2: "F16", 4: "F32"}[x.itemsize]).bits_dtype) if x.dtype != ml_dtypes.bfloat16 \
        else x.view(np.uint16)


@pytest.mark.parametrize("kernel", sorted(KEYS))
def test_batched_gqa_products_of_small_integers_are_exact(kompute, kernel):
    rng = np.random.default_rng(7)
    lhs = rng.integers(-8, 9, size=(4, 3, 5, 7)).astype(np.float64)  # |sums| <= 448: exact everywhere
    rhs = rng.integers(-8, 9, size=(2, 3, 7, 3)).astype(np.float64)
    out = run(kompute, kernel, lhs, rhs, lb=(4, 3), rb=(2, 3))
    want = np.matmul(lhs, np.repeat(rhs, 2, axis=0))
    np.testing.assert_array_equal(out.astype(np.float64), want)


@pytest.mark.parametrize("kernel", ["matmul_bf16_bf16_bf16", "matmul_f16_f16_f16"])
def test_the_f32_sum_is_rounded_once_to_nearest_even_on_store(kompute, kernel):
    # 1 + 2^-p·(odd multiples of a quarter ulp): each sum is exact in F32 and needs rounding in
    # the 16-bit output, ties included; summed in the output type, the small terms would vanish.
    p = 8 if "bf16" in kernel else 11
    ulp = 2.0 ** (1 - p)
    small = [ulp / 4, ulp / 2, 3 * ulp / 4, 3 * ulp / 2, ulp / 4]
    lhs = np.array([[1.0, *small[:i], *([0.0] * (5 - i))] for i in range(6)])
    rhs = np.ones((6, 1))
    out = run(kompute, kernel, lhs, rhs)
    np_dtype = out.dtype
    want = lhs.sum(axis=1, keepdims=True).astype(np.float32).astype(np_dtype)
    np.testing.assert_array_equal(_bits(out), _bits(want))


def test_f16_subnormal_operands_and_results(kompute):
    tiny = 2.0**-24  # the smallest F16 subnormal
    lhs = np.array([[tiny, 0.0], [2.0**-14, 0.0], [3 * tiny, 1.0]])
    rhs = np.array([[2.0**10, 1.0], [2.0**-20, 0.5]])
    for kernel in ("matmul_f16_f16_f32", "matmul_f16_f16_f16"):
        out = run(kompute, kernel, lhs, rhs)
        want = (lhs @ rhs).astype(np.float32).astype(out.dtype)
        np.testing.assert_array_equal(_bits(out), _bits(want), err_msg=kernel)


@pytest.mark.parametrize("kernel", ["matmul_bf16_bf16_bf16", "matmul_f16_f16_f16"])
@pytest.mark.parametrize("n", [1, 3, 129])
def test_odd_16_bit_outputs_are_fully_written(kompute, kernel, n):
    out = run(kompute, kernel, np.ones((1, 2)), np.ones((2, n)))
    np.testing.assert_array_equal(out.astype(np.float64), np.full((1, n), 2.0))


def test_a_key_without_a_kernel_is_refused(kompute):
    c = _contract("matmul_f32_bf16_b")
    why = kompute.supports(c, ("BF16", "F32"))
    assert isinstance(why, str) and "[BF16, F32, F32]" in why, why
    assert kompute.supports(c, ("F32", "BF16")) is True
