"""The oracle's independence (SPEC §2) and the guards of its Ziv loop."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from mpmath.libmp import from_man_exp

import numerics.rounding
import oracles
from numerics.rounding import float_spec
from oracles.ziv import RoundingUndecided, correctly_rounded

ORACLE_DIR = Path(oracles.__file__).parent
ROUNDING = Path(numerics.rounding.__file__)

# numpy as a container, index arithmetic on shapes, exact dtype conversions and bit views only;
# and logical masks (``zeros``, ``any``): which outputs a NaN input reaches (``Family.reach``)
NUMPY_ALLOWED = {
    "array", "asarray", "empty", "arange", "broadcast_to", "broadcast_shapes", "transpose",
    "prod", "dtype", "errstate", "ndim", "shape", "ascontiguousarray", "ndarray", "generic",
    "uint8", "uint16", "uint32", "uint64", "int64", "bool_", "float64", "object_",
    "ndindex", "ravel_multi_index", "unravel_index", "zeros", "any",
    # dtype names and format facts, and container operations that copy or pick elements unchanged
    "float16", "float32", "finfo", "iinfo", "frombuffer", "resize", "choose", "concatenate",
}
FORBIDDEN_MODULES = ("backends", "torch", "cupy", "kp", "gmpy2")


def _sources():
    """The oracle's modules, every family's included, and the correct rounding every oracle
    value goes through (which sits on the lower floor, ``numerics``, shared with the harness).
    The certified fast path (``oracles/fast``) has a wall of its own (``test_fast_path.py``):
    its binary64 arithmetic is proven, then checked against the pure path."""
    fast = ORACLE_DIR / "fast"
    return sorted(p for p in ORACLE_DIR.rglob("*.py") if fast not in p.parents) + [ROUNDING]


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(p.parents[1]).as_posix())
def test_oracle_imports_no_backend_and_no_numeric_kernel(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_MODULES, f"{path.name}:{node.lineno} imports {name}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "np":
            assert node.attr in NUMPY_ALLOWED, f"{path.name}:{node.lineno} uses np.{node.attr}"


def test_the_wall_check_catches_a_ufunc(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy as np\ny = np.exp(1.0)\n")
    with pytest.raises(AssertionError, match="uses np.exp"):
        test_oracle_imports_no_backend_and_no_numeric_kernel(bad)


def test_ziv_gives_up_on_an_exact_tie_instead_of_looping():
    s = float_spec("F32")
    midpoint = from_man_exp((1 << 24) + 1, -24)  # 1 + 2^-24: exactly between 1 and 1 + 2^-23
    with pytest.raises(RoundingUndecided, match="undecided"):
        correctly_rounded(lambda w: midpoint, s, slack=4)


def test_ziv_raises_more_precision_until_decided():
    s = float_spec("F32")
    calls = []

    def approx(w):  # 1 + 2^-24 + 2^-80: above the tie, visible only from w > 80 on
        calls.append(w)
        return from_man_exp((1 << 80) + (1 << 56) + 1, -80)

    bits, _ = correctly_rounded(approx, s, slack=4)
    assert bits == 0x3F800001 and len(calls) >= 2


def test_memoised_results_keep_the_sign_of_zero():
    for x, sign in ((-0.0, -1.0), (0.0, 1.0), (-0.0, -1.0)):
        out = oracles.evaluate("SinElementwise", [np.array([x], dtype=np.float32)], {}, ["F32"], {})
        assert np.copysign(1.0, out[0].expected[0]) == sign
