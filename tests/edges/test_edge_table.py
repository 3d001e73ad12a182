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
from judge.formats import get_format
from judge.scoring import Score, score_output

TABLE = Path(__file__).with_name("edges.toml")
ROWS = tomllib.loads(TABLE.read_text())["edge"]


def _value(text: str, dtype: str) -> np.ndarray:
    """One element of ``dtype`` from a float literal or a "0x..." bit pattern."""
    fmt = get_format(dtype)
    if text.startswith("0x"):
        return np.array([int(text, 16)], dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    return np.array([float(text)], dtype=np.float64).astype(fmt.numpy_dtype)


def _rules(contract) -> dict[str, str]:
    return {k: contract.semantics.get(k).value for k in SEMANTIC_VALUES}


def _array(values: list[str], dtype: str, shape) -> np.ndarray:
    flat = np.concatenate([_value(v, dtype) for v in values])
    return flat.reshape(shape) if shape is not None else flat


def findings(row: dict, contract, observed_text: str) -> list:
    """What the Judge's oracle and scoring make of ``observed_text`` in every output element."""
    dtype = row["dtype"]
    shape = row.get("shape")
    values = tuple(_array(v, dtype, shape) for v in row["inputs"])
    params = dict(row.get("params", {}))
    opdef = oracles.get(contract.op_kind)
    (out,) = opdef.evaluate(values, params, [dtype], _rules(contract))
    observed = np.full(out.expected.shape, _value(observed_text, dtype)[0], dtype=out.expected.dtype)
    score = Score()
    names = tuple(i.name for i in contract.inputs)
    score_output(contract, opdef, contract.semantics, values, names, params, observed, out, dtype, 0, score)
    return score.findings


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
    dtype = row["dtype"]
    values = tuple(_array(v, dtype, row.get("shape")) for v in row["inputs"])
    params = dict(row.get("params", {}))
    opdef = oracles.get(contract.op_kind)
    (out,) = opdef.evaluate(values, params, [dtype], _rules(contract))
    observed = _array(row["admitted"], dtype, row["observed_shape"])
    score = Score()
    names = tuple(i.name for i in contract.inputs)
    score_output(contract, opdef, contract.semantics, values, names, params, observed, out, dtype, 0, score)
    return score.findings


def test_every_row_quotes_its_source():
    for row in ROWS:
        assert row["quote"].strip(), row
        assert row["admitted"], row
