"""A finding's category names what happened: a zero where a subnormal belongs is a flush only
when the kernel's value is consistent with flushing (the zero keeps the subnormal's sign, or the
element's own input was subnormal; and, where an element may come from anywhere in the inputs,
the output keeps no subnormal elsewhere). A misplaced copy is a wrong value."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import oracles
from judge.scoring import Score, score_output

SUITE = Path(__file__).resolve().parents[2] / "suites" / "fuel"
SUB = float(np.float32(2.0**-140))  # a subnormal of F32


def _contract(file: str, kernel: str):
    from judge.suite import load_paths

    return next(c for c in load_paths([SUITE / file]).contracts if c.kernel == kernel)


def _checks(contract, inputs, params, observed) -> set[str]:
    opdef = oracles.get(contract.op_kind)
    ref = opdef.evaluate(inputs, params, ["F32"], contract.semantics.values())[0]
    score = Score()
    names = tuple(s.name for s in contract.inputs)
    score_output(contract, opdef, contract.semantics, tuple(inputs), names, params,
                 np.asarray(observed, np.float32), ref, "F32", 0, score)
    return {f.check for f in score.findings}


def _triu(data: np.ndarray, observed):
    contract = _contract("data-movement.fkc.md", "triu_cpu")
    x = np.asarray(data, np.float32)
    params = {"batch_count": 1, "rows": x.shape[0], "cols": x.shape[1], "diagonal": 0}
    return _checks(contract, [x], params, observed)


def test_a_zeroed_diagonal_beside_a_kept_subnormal_is_a_wrong_value():
    data = np.array([[SUB, SUB], [1.0, 2.0]], np.float32)
    zeroed = np.array([[0.0, SUB], [0.0, 0.0]], np.float32)  # the diagonal's subnormal is lost
    assert _triu(data, zeroed) == {"exact"}


def test_a_zero_of_the_other_sign_is_a_wrong_value():
    data = np.array([[-SUB, 3.0], [1.0, 2.0]], np.float32)
    zeroed = np.array([[0.0, 3.0], [0.0, 2.0]], np.float32)  # +0 where -SUB belongs
    assert _triu(data, zeroed) == {"exact"}


def test_a_copy_that_flushes_every_subnormal_is_a_flush():
    data = np.array([[SUB, -SUB], [1.0, 2.0]], np.float32)
    flushed = np.array([[0.0, -0.0], [0.0, 2.0]], np.float32)
    assert _triu(data, flushed) == {"subnormal"}


def _add(a, b, observed):
    contract = _contract("reference-elementwise.fkc.md", "add")
    return _checks(contract, [np.asarray(a, np.float32), np.asarray(b, np.float32)], {}, observed)


def test_an_elementwise_flush_keeps_the_sign_or_comes_from_a_subnormal_input():
    small = float(np.float32(2.0**-126))  # smallest normal: 1.25·small − small is subnormal
    assert _add([small * 1.25], [-small], [0.0]) == {"subnormal"}  # FTZ of a +subnormal result
    assert _add([-SUB], [0.0], [0.0]) == {"subnormal"}  # DAZ: the input itself was subnormal


def test_an_elementwise_zero_of_the_wrong_sign_from_normal_inputs_is_not_a_flush():
    small = float(np.float32(2.0**-126))
    checks = _add([-small * 1.25], [small], [0.0])  # exact -0.25·2^-126, observed +0
    assert checks and "subnormal" not in checks
