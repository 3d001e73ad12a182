"""The scorer's integer measurement equals its Fraction measurement, number for number.

``_measure_dyadic`` computes the ULP-real error, absolute and relative errors of an element whose
exact value is dyadic (a float, an mpf, a power-of-two Fraction) with integers; ``_measure`` does
it with Fractions. Over generated cases with observations a few ulp off, both must give the same
lists and maxima bit for bit (the share of the bound used too), and the same findings.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import judge.scoring.exact as exact
from judge.executor import output_dtypes
from judge.scoring import Score, score_output
from judge.strategies import case_strategy
from numerics.formats import get_format

KERNELS = [
    ("reference-elementwise.fkc.md", "exp", "F32"), ("reference-elementwise.fkc.md", "tanh", "F16"),
    ("reference-elementwise.fkc.md", "sqrt", "F64"), ("reference-elementwise.fkc.md", "add", "BF16"),
    ("reference-elementwise.fkc.md", "div", "F32"), ("reduce.fkc.md", "sum_reduce_cpu", "F16"),
    ("softmax-norm.fkc.md", "rms_norm_last_dim_cpu", "F32"),
]


@pytest.mark.parametrize("file, kernel, dtype", KERNELS)
def test_integer_and_fraction_measurements_agree(suite, monkeypatch, file, kernel, dtype):
    import oracles

    contract = suite(file, kernel)
    op = oracles.get(contract.op_kind)
    names = tuple(s.name for s in contract.inputs)
    real = exact._measure_dyadic
    used = [0]

    def scores(case, observed, ref, out_dtype, i, integer: bool):
        def fast(*args):
            done = real(*args)
            used[0] += done[0]
            return done

        monkeypatch.setattr(exact, "_measure_dyadic", fast if integer else lambda *args: (False, None))
        s = Score()
        with np.errstate(all="ignore"):
            score_output(contract, op, contract.semantics, case.values, names, case.params, observed,
                         ref, out_dtype, i, s)
        return s.ulp, s.ulp_real, s.abs_max, s.rel_max, s.bound_used, [f.message for f in s.findings]

    @settings(max_examples=60, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(contract, dtype), st.integers(0, 2**32 - 1))
    def check(case, salt):
        out_dtypes = output_dtypes(contract, tuple(t.dtype for t in case.inputs))
        refs = op.evaluate(case.values, case.params, out_dtypes, contract.semantics.values())
        rng = np.random.default_rng(salt)
        for i, (ref, out_dtype) in enumerate(zip(refs, out_dtypes, strict=True)):
            fmt = get_format(out_dtype)
            expected = np.asarray(ref.expected)
            bits = expected.reshape(-1).view(fmt.bits_dtype).astype(np.int64)
            bits += rng.integers(-2, 3, bits.size) * (rng.random(bits.size) < 0.3)  # a few ulp off
            observed = np.clip(bits, 0, (1 << fmt.bits) - 1).astype(fmt.bits_dtype)
            observed = observed.view(fmt.numpy_dtype).reshape(expected.shape)
            assert scores(case, observed, ref, out_dtype, i, True) == scores(case, observed, ref, out_dtype, i, False)

    seed(0)(check)()
    assert used[0] > 0, "the integer path never measured an element"
