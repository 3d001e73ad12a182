"""``accept.validations``: the refusals a contract states load in both spellings, and a malformed
entry is an error naming file, line, kernel and field."""

from __future__ import annotations

import pytest
from fkc_testing import REDUCE, fkc_file

from judge.contracts import loader

FILE = "reduce.fkc.md"

FLAT = """validations:
- { kind: operand_count }
- kind: divisible
expr: "dim(input, -1) % 4 == 0"
- { kind: index_range, input: input, axis_of: input, note: "indices within the axis" }
return:"""

def load(block: str):
    return loader.load_text(fkc_file(block), FILE, defaults_for=lambda op_kind: {})


def with_validations(text: str) -> str:
    assert REDUCE.count("\nreturn:") == 1
    return REDUCE.replace("\nreturn:", "\n" + text, 1)


def test_validations_load_in_the_flattened_spelling():
    result = load(with_validations(FLAT))
    assert result.errors == [], [str(e) for e in result.errors]
    (contract,) = result.contracts
    kinds = [(v.kind, v.input, v.axis_of, v.expr) for v in contract.validations]
    assert kinds == [("operand_count", None, None, None),
                     ("divisible", None, None, "dim(input, -1) % 4 == 0"),
                     ("index_range", "input", "input", None)]
    assert contract.validations[2].note == "indices within the axis"
    assert contract.tree["accept"]["validations"][0] == {"kind": "operand_count"}


@pytest.mark.parametrize("entry, field, message", [
    ("{ kind: bogus }", "accept.validations[0].kind", "'bogus' is not a validation kind"),
    ("{ kind: dtype }", "accept.validations[0].input", "missing"),
    ("{ kind: dtype, input: nope }", "accept.validations[0].input", "'nope' names no input"),
    ("{ kind: divisible, expr: \"k / 2\" }", "accept.validations[0].expr", "is not a divisibility"),
    ("{ kind: param_length, param: sizes }", "accept.validations[0].param", "names no op_params field"),
    ("{ kind: operand_count, expr: \"k % 2 == 0\" }", "accept.validations[0].expr", "takes no 'expr'"),
    ("operand_count", "accept.validations[0]", "expected { kind: ... }"),
])
def test_a_malformed_validation_is_an_error_naming_its_place(entry, field, message):
    block = with_validations(f"validations:\n- {entry}\nreturn:")
    result = load(block)
    assert len(result.errors) == 1, [str(e) for e in result.errors]
    error = result.errors[0]
    line = next(i + 1 for i, ln in enumerate(fkc_file(block).splitlines()) if entry in ln)
    assert (error.file, error.line, error.kernel, error.field) == (FILE, line, "sum_reduce_cpu", field)
    assert message in error.message


def test_lint_reports_a_malformed_validation_without_a_traceback(tmp_path):
    import subprocess
    import sys

    path = tmp_path / FILE
    path.write_text(fkc_file(with_validations("validations:\n- { kind: bogus }\nreturn:")))
    done = subprocess.run([sys.executable, "-m", "judge.cli", "lint", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert "sum_reduce_cpu accept.validations[0].kind" in done.stdout + done.stderr


def test_the_embedded_suite_states_validations_in_the_indented_spelling():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "suites" / "fuel" / "quant-matmul.fkc.md"
    from judge.suite import load_file

    result = load_file(path)
    assert result.errors == []
    nf4 = next(c for c in result.contracts if c.kernel == "nf4_matmul_cpu")
    assert [(v.kind, v.expr) for v in nf4.validations] == [
        ("divisible", "k % 2 == 0"), ("divisible", "k % block_size == 0")]
    assert all(v.line > 0 and v.note for v in nf4.validations)
