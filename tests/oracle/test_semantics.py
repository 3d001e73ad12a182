"""The semantic rules of every OpKind, asserted on hand-picked cases."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp

import oracles
from numerics.formats import get_format
from numerics.rounding import float_spec, round_float

NAN, INF = math.nan, math.inf

REQUIRED = """NegElementwise ReluElementwise SqrElementwise SqrtElementwise RsqrtElementwise
RecipElementwise ExpElementwise LogElementwise SinElementwise CosElementwise TanhElementwise
SigmoidElementwise SiluElementwise GeluElementwise GeluErfElementwise ErfElementwise
AbsElementwise SignElementwise StepElementwise FloorElementwise CeilElementwise RoundElementwise
PowIElementwise Affine ClampElementwise AddElementwise SubElementwise MulElementwise
DivElementwise MaximumElementwise MinimumElementwise PowElementwise RemElementwise
EqualElementwise NotEqualElementwise LessElementwise LessEqualElementwise GreaterElementwise
GreaterEqualElementwise Where SumReduce MaxReduce MinReduce MeanReduce ReduceSumTo ReduceMaxTo
ReduceMaxToBackward ArgMaxDim ArgMinDim""".split()

EXACT_BY_DEFINITION = {
    "NegElementwise", "ReluElementwise", "AbsElementwise", "SignElementwise", "StepElementwise",
    "FloorElementwise", "CeilElementwise", "RoundElementwise", "ClampElementwise",
    "MaximumElementwise", "MinimumElementwise", "EqualElementwise", "NotEqualElementwise",
    "LessElementwise", "LessEqualElementwise", "GreaterElementwise", "GreaterEqualElementwise",
    "Where", "MaxReduce", "MinReduce", "ReduceMaxTo", "ArgMaxDim", "ArgMinDim",
}


def arr(xs, fmt="F32"):
    return np.array(xs, dtype=np.float64).astype(get_format(fmt).numpy_dtype)


def run(op, *inputs, fmt="F32", params=None, rules=None, out=None):
    res = oracles.evaluate(op, list(inputs), params or {}, [out or fmt], rules or {})
    return res[0]


def vals(op, *inputs, **kw):
    return run(op, *inputs, **kw).expected.astype(np.float64).reshape(-1).tolist()


def same(got, want):
    """Element-wise identity including NaN and the sign of zero."""
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g), (got, want)
        else:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (got, want)


def test_table_has_every_opkind_with_the_spec_exactness():
    assert set(REQUIRED) <= set(oracles.op_kinds())
    for op in REQUIRED:
        assert oracles.get(op).exact == (op in EXACT_BY_DEFINITION), op


@pytest.mark.parametrize("op", REQUIRED)
@pytest.mark.parametrize("fmt", ["F64", "F32", "F16", "BF16"])
def test_hints_are_representable(op, fmt):
    s = float_spec(fmt)
    for h in oracles.get(op).hints(fmt):
        assert isinstance(h, float)
        if not math.isnan(h):
            b = round_float(h, s)
            assert float(np.array([b], dtype=s.bits_dtype).view(s.dtype).astype(np.float64)[0]) == h


# --- unary -------------------------------------------------------------------------------------


def test_round_half_to_even_and_away():
    x = arr([2.5, 3.5, -2.5, -0.5, 0.5, -0.4, 1.5000001, 8388607.5])
    same(vals("RoundElementwise", x), [2.0, 4.0, -2.0, -0.0, 0.0, -0.0, 2.0, 8388608.0])
    same(vals("RoundElementwise", x, rules={"rounding": "half_away_from_zero"}),
         [3.0, 4.0, -3.0, -1.0, 1.0, -0.0, 2.0, 8388608.0])


def test_floor_ceil_keep_the_sign_of_zero():
    x = arr([-0.5, 0.5, -0.0, 1e-30, -1e-30, INF, NAN])
    same(vals("FloorElementwise", x), [-1.0, 0.0, -0.0, 0.0, -1.0, INF, NAN])
    same(vals("CeilElementwise", x), [-0.0, 1.0, -0.0, 1.0, -0.0, INF, NAN])


def test_relu_and_step_nan_rules():
    x = arr([NAN, -0.0, -1.0, 2.0, 0.0])
    same(vals("ReluElementwise", x), [0.0, 0.0, 0.0, 2.0, 0.0])
    same(vals("ReluElementwise", x, rules={"nan": "propagate"}), [NAN, 0.0, 0.0, 2.0, 0.0])
    same(vals("StepElementwise", x), [0.0, 0.0, 0.0, 1.0, 0.0])
    same(vals("StepElementwise", x, rules={"nan": "propagate"}), [NAN, 0.0, 0.0, 1.0, 0.0])


def test_unsupported_rule_is_an_error():
    with pytest.raises(ValueError, match="nan rule 'ignore' cannot be evaluated"):
        run("ReluElementwise", arr([1.0]), rules={"nan": "ignore"})


def test_sign_neg_abs():
    x = arr([-0.0, 0.0, -3.0, 2.0, NAN, -INF])
    same(vals("SignElementwise", x), [0.0, 0.0, -1.0, 1.0, NAN, -1.0])
    same(vals("NegElementwise", x), [0.0, -0.0, 3.0, -2.0, NAN, INF])
    same(vals("AbsElementwise", x), [0.0, 0.0, 3.0, 2.0, NAN, INF])


def test_sqrt_rsqrt_recip_specials():
    x = arr([-0.0, 0.0, -1.0, INF, 4.0, NAN])
    same(vals("SqrtElementwise", x), [-0.0, 0.0, NAN, INF, 2.0, NAN])
    same(vals("RsqrtElementwise", x), [-INF, INF, NAN, 0.0, 0.5, NAN])
    same(vals("RecipElementwise", x), [-INF, INF, -1.0, 0.0, 0.25, NAN])


def test_sqr_overflows_and_underflows_with_sign():
    same(vals("SqrElementwise", arr([2.0**64, -(2.0**-80), -3.0])), [INF, 0.0, 9.0])


def test_transcendental_exact_cases():
    z = arr([0.0, -0.0])
    same(vals("ExpElementwise", z), [1.0, 1.0])
    same(vals("SinElementwise", z), [0.0, -0.0])
    same(vals("CosElementwise", z), [1.0, 1.0])
    same(vals("TanhElementwise", z), [0.0, -0.0])
    same(vals("ErfElementwise", z), [0.0, -0.0])
    same(vals("SigmoidElementwise", z), [0.5, 0.5])
    same(vals("SiluElementwise", z), [0.0, -0.0])
    same(vals("GeluElementwise", z), [0.0, -0.0])
    same(vals("LogElementwise", arr([1.0, 0.0, -0.0, -1.0, INF])), [0.0, -INF, -INF, NAN, INF])


def test_limits_at_infinity():
    x = arr([INF, -INF, NAN])
    same(vals("ExpElementwise", x), [INF, 0.0, NAN])
    same(vals("TanhElementwise", x), [1.0, -1.0, NAN])
    same(vals("SigmoidElementwise", x), [1.0, 0.0, NAN])
    same(vals("SiluElementwise", x), [INF, -0.0, NAN])
    same(vals("GeluElementwise", x), [INF, -0.0, NAN])
    same(vals("GeluErfElementwise", x), [INF, -0.0, NAN])
    same(vals("ErfElementwise", x), [1.0, -1.0, NAN])
    same(vals("SinElementwise", x), [NAN, NAN, NAN])


def test_exp_overflow_threshold_in_f32():
    # ln(2^128) = 88.7228...: 88.72283 still rounds below 2^128, 88.72284 overflows
    got = vals("ExpElementwise", arr([88.72283, 88.72284, -103.98]))
    assert 3.40e38 < got[0] < INF and got[1:] == [INF, 0.0]


def test_gelu_is_the_tanh_form_rounded_once():
    tanh_form = run("GeluElementwise", arr([1.0], "F64"), fmt="F64")
    erf_form = run("GeluErfElementwise", arr([1.0], "F64"), fmt="F64")
    assert tanh_form.expected[0] == float(tanh_form.exact[0])  # float(mpf) rounds correctly
    with mp.workdps(40):  # the textbook formulas, directly
        u = mp.sqrt(2 / mp.pi) * (1 + mp.mpf("0.044715"))
        assert abs(tanh_form.exact[0] - (1 + mp.tanh(u)) / 2) < 1e-22  # exact carries p + 32 bits
        assert abs(erf_form.exact[0] - (1 + mp.erf(1 / mp.sqrt(2))) / 2) < 1e-22


def test_exact_values_accompany_results():
    out = run("DivElementwise", arr([1.0]), arr([3.0]))
    assert out.exact[0] == Fraction(1, 3)
    out = run("SqrtElementwise", arr([2.0], "F64"), fmt="F64")
    assert abs(out.exact[0] ** 2 - 2) < 1e-30  # mpf with extra bits
    out = run("ExpElementwise", arr([NAN, INF]))
    assert out.exact.tolist() == [None, None]


# --- binary ------------------------------------------------------------------------------------


def test_signed_zero_arithmetic():
    same(vals("AddElementwise", arr([-0.0, -0.0, 1.0, 5.0]), arr([-0.0, 0.0, -1.0, -5.0])),
         [-0.0, 0.0, 0.0, 0.0])
    same(vals("SubElementwise", arr([3.0, -0.0, 0.0]), arr([3.0, 0.0, 0.0])), [0.0, -0.0, 0.0])
    same(vals("MulElementwise", arr([-0.0, INF, -2.0, 2.0**-100]), arr([5.0, 0.0, -INF, -(2.0**-100)])),
         [-0.0, NAN, INF, -0.0])
    same(vals("DivElementwise", arr([1.0, 0.0, -1.0, INF, 1.0]), arr([-0.0, 0.0, INF, INF, 3.0])),
         [-INF, NAN, -0.0, NAN, float(np.float32(1 / 3))])


def test_add_rounds_once_into_half_formats():
    # 1 + 2^-8 + 2^-20 in F16 (p = 11): exact sum rounds to 1 + 2^-8
    assert vals("AddElementwise", arr([1.0], "F16"), arr([2.0**-8 + 2.0**-20], "F16"), fmt="F16") == [1.00390625]


def test_binary_broadcasting():
    out = run("AddElementwise", arr([[1.0], [2.0]]), arr([10.0, 20.0, 30.0]))
    assert out.expected.shape == (2, 3)
    assert out.expected.tolist() == [[11, 21, 31], [12, 22, 32]]


def test_maximum_minimum_under_both_nan_rules():
    a, b = arr([NAN, 1.0, -0.0, NAN]), arr([1.0, NAN, 0.0, NAN])
    same(vals("MaximumElementwise", a, b), [NAN, NAN, 0.0, NAN])
    same(vals("MaximumElementwise", a, b, rules={"nan": "ignore"}), [1.0, 1.0, 0.0, NAN])
    same(vals("MinimumElementwise", a, b, rules={"nan": "ignore"}), [1.0, 1.0, -0.0, NAN])
    same(vals("MinimumElementwise", arr([0.0]), arr([-0.0])), [-0.0])


def test_remainder_conventions():
    a, b = arr([-1.0, 1.0, -6.0, 6.0, 5.5, -1.0, 1.0, INF]), arr([3.0, -3.0, 3.0, -3.0, 2.0, INF, 0.0, 2.0])
    same(vals("RemElementwise", a, b), [2.0, -2.0, 0.0, -0.0, 1.5, INF, NAN, NAN])
    same(vals("RemElementwise", a, b, rules={"remainder": "truncated"}),
         [-1.0, 1.0, -0.0, 0.0, 1.5, -1.0, NAN, NAN])


def test_floored_remainder_rounds_its_exact_value():
    # −2^-30 mod 3 = 3 − 2^-30: not representable in F32, rounds to 3
    same(vals("RemElementwise", arr([-(2.0**-30)]), arr([3.0])), [3.0])


def test_pow_special_cases():
    x = arr([NAN, 1.0, -8.0, -0.0, -0.0, -0.0, 0.0, -INF, -INF, -1.0, 0.5, 2.0, 2.25, -2.0, 4.0, -1.0])
    y = arr([0.0, NAN, 1 / 3, -1.0, -2.0, 3.0, -INF, 3.0, -3.0, INF, -INF, -INF, 0.5, 3.0, 1.5, -INF])
    same(vals("PowElementwise", x, y, fmt="F64"),
         [1.0, 1.0, NAN, -INF, INF, -0.0, INF, -INF, -0.0, 1.0, INF, 0.0, 1.5, -8.0, 8.0, 1.0])


def test_pow_exact_roots_and_huge_exponents():
    got = vals("PowElementwise", arr([0.5625, 2.0, 1.0 + 2**-23, 10.0]), arr([0.5, -149.0, 2.0**24, 39.0]))
    same(got[:2] + got[3:], [0.75, 2.0**-149, INF])
    assert abs(got[2] - math.e**2) < 1e-6  # (1 + 2^-23)^(2^24) ≈ e^2


def test_powi():
    x = arr([NAN, 2.0, 0.0, -0.0, -2.0, 3.0])
    same(vals("PowIElementwise", x, params={"exp": 0}), [1.0] * 6)
    same(vals("PowIElementwise", x, params={"exp": -1}), [NAN, 0.5, INF, -INF, -0.5, float(np.float32(1 / 3))])
    same(vals("PowIElementwise", x, params={"exp": 3}), [NAN, 8.0, 0.0, -0.0, -8.0, 27.0])


def test_affine_is_one_rounding_of_the_exact_value():
    # (1 + 2^-23)(1 − 2^-24) − 1 = 2^-24 − 2^-47 exactly; two roundings would give 0
    x = arr([1.0 + 2**-23])
    out = run("Affine", x, params={"mul": 1.0 - 2**-24, "add": -1.0})
    assert out.expected.tolist() == [2.0**-24 - 2.0**-47]
    same(vals("Affine", arr([INF, 2.0]), params={"mul": 0.0, "add": -0.0}), [NAN, 0.0])
    same(vals("Affine", arr([-0.0]), params={"mul": 1.0, "add": -0.0}), [-0.0])


def test_clamp_params_and_nan():
    x = arr([-5.0, 0.5, 5.0, NAN, -0.0])
    same(vals("ClampElementwise", x, params={"min": 0.0, "max": 1.0}), [0.0, 0.5, 1.0, NAN, 0.0])
    same(vals("ClampElementwise", x, params={"lo": -1.0, "hi": 2.0}), [-1.0, 0.5, 2.0, NAN, -0.0])


def test_comparisons_are_ieee():
    a, b = arr([NAN, NAN, -0.0, 1.0, 2.0]), arr([NAN, 1.0, 0.0, 2.0, 1.0])
    cmp = {
        "EqualElementwise": [0, 0, 1, 0, 0],
        "NotEqualElementwise": [1, 1, 0, 1, 1],
        "LessElementwise": [0, 0, 0, 1, 0],
        "LessEqualElementwise": [0, 0, 1, 1, 0],
        "GreaterElementwise": [0, 0, 0, 0, 1],
        "GreaterEqualElementwise": [0, 0, 1, 0, 1],
    }
    for op, want in cmp.items():
        out = run(op, a, b, out="BOOL")
        assert out.expected.dtype == np.bool_ and out.expected.astype(int).tolist() == want, op


def test_where_broadcasts_and_copies():
    c = np.array([[True], [False]])
    out = run("Where", c, arr([1.0, NAN, -0.0]), arr([[7.0], [8.0]]))
    assert out.expected.shape == (2, 3)
    same(out.expected.reshape(-1).astype(np.float64).tolist(), [1.0, NAN, -0.0, 8.0, 8.0, 8.0])


# --- reductions --------------------------------------------------------------------------------


def test_sum_and_mean_exact_with_one_rounding():
    x = arr([[1.0, 1.0 + 2**-23, 1.0 + 2**-23], [2.0**30, 1.0, -(2.0**30)]])
    s = run("SumReduce", x, params={"dims": [1], "keepdim": False})
    assert s.expected.tolist() == [3.0 + 2**-22, 1.0]
    assert s.terms[1] == (3, Fraction(2**31 + 1))
    assert s.acc_format == "F32"
    m = run("MeanReduce", x, params={"dims": [1], "keepdim": True})
    assert m.expected.shape == (2, 1)
    assert m.exact[0, 0] == 1 + Fraction(2, 3 * 2**23)
    assert m.expected[0, 0] == np.float32(1 + 2**-23)


def test_sum_special_values_and_zero_signs():
    p = {"dims": [0], "keepdim": False}
    same(vals("SumReduce", arr([[-0.0, 1.0, INF, INF], [-0.0, -1.0, -INF, 1.0]]), params=p),
         [-0.0, 0.0, NAN, INF])
    same(vals("MeanReduce", arr([[-0.0], [-0.0]]), params=p), [-0.0])
    empty = np.zeros((0, 2), dtype=np.float32)
    same(vals("SumReduce", empty, params=p), [0.0, 0.0])
    same(vals("MeanReduce", empty, params=p), [NAN, NAN])


def test_half_inputs_reduce_exactly_with_an_f32_accumulator_bound():
    x = arr([2048.0, 1.0, 1.0], "F16")  # 2048 + 1 + 1 = 2050 exactly (a sequential F16 sum gives 2048)
    out = run("SumReduce", x, fmt="F16", params={"dims": [0], "keepdim": False})
    assert out.expected.shape == () and float(out.expected) == 2050.0 and out.acc_format == "F32"


def test_no_dims_is_the_identity():
    x = arr([[1.0, -0.0]])
    same(vals("SumReduce", x, params={"dims": [], "keepdim": False}), [1.0, -0.0])


def test_extremum_reductions():
    x = arr([[1.0, NAN, 3.0], [-0.0, 0.0, -1.0]])
    p = {"dims": [1], "keepdim": False}
    same(vals("MaxReduce", x, params=p), [NAN, 0.0])
    same(vals("MaxReduce", x, params=p, rules={"nan": "ignore"}), [3.0, 0.0])
    same(vals("MinReduce", x, params=p, rules={"nan": "ignore"}), [1.0, -1.0])
    same(vals("MaxReduce", arr([[NAN, NAN]]), params=p, rules={"nan": "ignore"}), [NAN])


def test_argmax_argmin():
    p = {"dims": [1], "keepdim": False}
    x = arr([[1.0, 3.0, 3.0], [NAN, 1.0, 0.0], [NAN, NAN, NAN], [-0.0, 0.0, -1.0]])
    assert run("ArgMaxDim", x, params=p, out="U32").expected.tolist() == [1, 1, 0, 0]
    assert run("ArgMinDim", x, params=p, out="U32").expected.tolist() == [0, 2, 0, 2]
    prop = run("ArgMaxDim", arr([[1.0, NAN, NAN]]), params=p, out="U32", rules={"nan": "propagate"})
    assert prop.expected.tolist() == [1]
    keep = run("ArgMaxDim", x, params={"dims": [0], "keepdim": True}, out="U32").expected
    assert keep.shape == (1, 3) and keep.dtype == np.uint32


def test_reduce_to_shapes():
    x = arr([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    p = {"input_shape": [2, 3], "output_shape": [1, 3]}
    assert run("ReduceSumTo", x, params=p).expected.tolist() == [[5.0, 7.0, 9.0]]
    p = {"input_shape": [2, 3], "output_shape": [2, 1]}
    assert run("ReduceMaxTo", x, params=p).expected.tolist() == [[3.0], [6.0]]
    with pytest.raises(ValueError, match="must be 3 or 1"):
        run("ReduceSumTo", x, params={"input_shape": [2, 3], "output_shape": [2, 2]})


def test_reduce_max_to_backward_shares_upstream_among_ties():
    x = arr([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [NAN, 5.0, 1.0]])
    up = arr([[1.0], [3.0], [7.0]])
    p = {"input_shape": [3, 3], "output_shape": [3, 1]}
    same(run("ReduceMaxToBackward", x, up, params=p).expected.reshape(-1).astype(np.float64).tolist(),
         [0.0, 0.5, 0.5, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    ignore = run("ReduceMaxToBackward", x, up, params=p, rules={"nan": "ignore"}).expected
    assert ignore[2].tolist() == [0.0, 7.0, 0.0]
    thirds = run("ReduceMaxToBackward", arr([[2.0, 2.0, 2.0]]), arr([[1.0]]),
                 params={"input_shape": [1, 3], "output_shape": [1, 1]})
    assert thirds.expected.tolist() == [[np.float32(1 / 3)] * 3]
    assert thirds.exact[0, 0] == Fraction(1, 3)
