"""The in-place family: elementwise OpKinds that overwrite their operand (ExpInplace ... the
in-place affine), each the twin of an out-of-place elementwise OpKind.

An in-place kernel's result must be what its out-of-place twin computes, so every row here is
that twin's ``OpDef`` under the in-place name (``oracles.families.inplace.table``): the same
reference evaluation, semantic defaults, value hints and op-param rule, nothing recomputed.
Cases are drawn as the elementwise family draws them. What is in place about them (the output
is the operand's own memory, and nothing outside it may change) is the executor's business,
declared by the contract's ``aliasing: in_place(x)``.
"""

from __future__ import annotations

from oracles.drawing import special_value_grid
from oracles.families.elementwise import draw_shapes, example_params, size_plan
from oracles.families.inplace.table import rows
from oracles.family import Family

FAMILY = Family(
    name="inplace",
    rows=rows,
    draw_shapes=draw_shapes,
    elementwise=True,
    size_plan=size_plan,
    example_params=example_params,
    value_grid=special_value_grid,
)
