"""The oracle and the scoring against the edge-semantics table (tests/edges/edges.toml).

The table is written from the contracts' text and SPEC §4, not from the oracle: each row's
``admitted`` results must pass the Judge's scoring, each ``rejected`` result must fail under the
named check (the category names what broke, not the rule in play).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

import oracles
from judge.contracts.model import SEMANTIC_VALUES
from judge.scoring import Score, score_output
from numerics.formats import get_format

TABLE = Path(__file__).with_name("edges.toml")
ROWS = tomllib.loads(TABLE.read_text())["edge"]


def _value(text: str, dtype: str) -> np.ndarray:
    """One element of ``dtype`` from a float literal, a "0x..." bit pattern, or 0/1 (BOOL, U32)."""
    if dtype == "BOOL":
        return np.array([bool(int(text))])
    if dtype == "U32":
        return np.array([int(text)], dtype=np.uint32)
    fmt = get_format(dtype)
    if text.startswith("0x"):
        return np.array([int(text, 16)], dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    return np.array([float(text)], dtype=np.float64).astype(fmt.numpy_dtype)


def _evaluate(row: dict, contract):
    """(operands, params, the oracle's output, output dtype) of one row."""
    dtype = row["dtype"]
    in_dtypes = row.get("input_dtypes", [dtype] * len(row["inputs"]))
    shapes = row.get("shapes", [row.get("shape")] * len(row["inputs"]))
    values = tuple(_array(v, dt, shape) for v, dt, shape in zip(row["inputs"], in_dtypes, shapes, strict=True))
    params = dict(row.get("params", {}))
    out_dtype = row.get("out_dtype", dtype)
    opdef = oracles.get(contract.op_kind)
    (out,) = opdef.evaluate(values, params, [out_dtype], _rules(contract))
    return values, params, out, out_dtype


def _score(row, contract, observed_of) -> list:
    values, params, out, out_dtype = _evaluate(row, contract)
    observed = observed_of(out, out_dtype)
    score = Score()
    names = tuple(i.name for i in contract.inputs)
    opdef = oracles.get(contract.op_kind)
    score_output(contract, opdef, contract.semantics, values, names, params, observed, out, out_dtype, 0, score)
    return score.findings


def _rules(contract) -> dict[str, str]:
    return {k: contract.semantics.get(k).value for k in SEMANTIC_VALUES}


def _array(values: list[str], dtype: str, shape) -> np.ndarray:
    if not values:
        return np.zeros(shape or (0,), dtype=_value("0", dtype).dtype)
    flat = np.concatenate([_value(v, dtype) for v in values])
    return flat.reshape(shape) if shape is not None else flat


def findings(row: dict, contract, observed_text: str) -> list:
    """What the Judge's oracle and scoring make of ``observed_text`` in every output element."""
    return _score(row, contract, lambda out, dt: np.full(out.expected.shape, _value(observed_text, dt)[0],
                                                          dtype=out.expected.dtype))


def _contract(suite_contract, row):
    file, kernel = row["kernel"].split("::")
    return suite_contract(file, kernel)


def _admitted_cases():
    for n, row in enumerate(ROWS):
        name = f"{n}-{row['kernel'].split('::')[1]}-{row['dtype']}"
        if "observed_shape" in row:  # the admitted list is the whole output, element by element
            yield pytest.param(row, None, id=f"{name}-elementwise")
            continue
        for result in row["admitted"]:
            yield pytest.param(row, result, id=f"{name}-{result}")


def _rejected_cases():
    for n, row in enumerate(ROWS):
        for result, check in row.get("rejected", {}).items():
            yield pytest.param(row, result, check, id=f"{n}-{row['kernel'].split('::')[1]}-{row['dtype']}-{result}")


@pytest.mark.parametrize("row, result", _admitted_cases())
def test_an_admitted_result_passes(suite, row, result):
    contract = _contract(suite, row)
    got = _per_element(row, contract) if result is None else findings(row, contract, result)
    assert not got, f"{row['kernel']} {row['dtype']} {row['inputs']} -> {result}: {got}\n  quote: {row['quote']}"


@pytest.mark.parametrize("row, result, check", _rejected_cases())
def test_a_rejected_result_fails_under_what_broke(suite, row, result, check):
    contract = _contract(suite, row)
    got = findings(row, contract, result)
    assert got, f"{row['kernel']} {row['dtype']} {row['inputs']} -> {result} passed; {row['quote']}"
    assert {f.check for f in got} == {check}, [f.message for f in got]


def _per_element(row, contract) -> list:
    """Rows with ``observed_shape``: the admitted list is the whole output, element by element."""
    return _score(row, contract, lambda out, dt: _array(row["admitted"], dt, row["observed_shape"]))


def test_every_row_quotes_its_source():
    for row in ROWS:
        assert row["quote"].strip(), row
        assert row["admitted"], row
