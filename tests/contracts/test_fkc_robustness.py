"""Damaged contract text never crashes the loader: it yields errors, warnings or contracts."""

from __future__ import annotations

from fkc_testing import ADD, REDUCE, fkc_file
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.contracts import ContractError, LintWarning, loader
from judge.contracts.model import Contract

_JUNK = st.sampled_from(["", "  ", "- ", "-", ":", "{", "[", "]", "~", "#", "|", ">", "\t",
                         "- {", "key: value", "  nested: 1", "2..4", "same_as=", "```", "'",
                         '"', "- name:", "fields:", "accept:", "{ kind: bool }"])


INDENTED = """
kernel: neg
op_kind: NegElementwise
backend: Cpu
accept:
  inputs:
    - name: x
      dtypes:
        - F32
      layout: { contiguous: required, strided: rejected, broadcast_stride0: rejected,
                start_offset: rejected, reverse_strides: rejected }
  op_params:
    variant: None
return:
  outputs:
  - name: out
    dtype_rule: passthrough(x)
    shape_rule: same_as(x)
precision:
  notes: >
    exact sign flip
determinism: bitwise
"""


@st.composite
def damaged(draw):
    lines = draw(st.sampled_from([REDUCE, ADD, INDENTED])).strip().splitlines()
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "dup", "indent", "junk", "cut", "append"]))
        if action == "drop" and len(lines) > 1:
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "indent":
            lines[i] = " " * draw(st.integers(1, 6)) + lines[i]
        elif action == "junk":
            lines[i] = draw(_JUNK)
        elif action == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:
            lines[i] = lines[i] + draw(_JUNK)
    return "\n".join(lines)


@settings(max_examples=300)
@given(damaged())
def test_damaged_blocks_load_or_fail_cleanly(block):
    result = loader.load_text(fkc_file(block, ADD.replace("add_cpu", "add_other")), "x.fkc.md",
                       defaults_for=lambda op_kind: {})
    assert all(isinstance(e, ContractError) and e.file == "x.fkc.md" and e.line for e in
               result.errors)
    assert all(isinstance(w, LintWarning) for w in result.warnings)
    assert all(isinstance(c, Contract) for c in result.contracts)
    if "```" not in block:  # a stray fence may swallow what follows; nothing else may
        assert "add_other" in [c.kernel for c in result.contracts]
