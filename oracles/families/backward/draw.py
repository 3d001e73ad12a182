"""The backward ops' cases: two operands of one shape (the forward's output or input, and the
upstream gradient), the row ops' params from that shape (a norm's ``eps`` as its forward draws
it), values, and the long rows.

Values come half the time from the harness's edge-biased generator (NaN, ±inf, ±0, subnormals,
any bit pattern) and half the time as a forward would hand them over: y a softmax or
log-softmax of random logits, x a norm's input around an offset, g a gradient of moderate size.
Those rows keep every intermediate inside the accumulator's range, where the derived bound
judges each element; the edge-biased ones exercise the special-value semantics.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.arrays import Generator, generator, pick, softmax_rows
from numerics.long_rows import PATTERNS, draw_row, row_values
from numerics.values import SEED
from oracles.drawing import free_shapes, operand_span
from oracles.families.lastdim.draw import NORM, SOFTMAX, norm_hints, softmax_hints
from oracles.hints import hints

ROW_PARAMS = {"SoftmaxLastDimBackward": SOFTMAX, "LogSoftmaxLastDimBackward": SOFTMAX,
              "RmsNormLastDimBackward": NORM, "LayerNormLastDimBackward": NORM}
OFFSETS = (0.0, 0.0, 1024.0, -300.0, 3.0)
SCALES = (1.0, 0.25, 4.0, 1 / 64)
# Long rows stop here: a narrow accumulator already shows over 512 terms, and the exact
# reference of a row costs a rational (an exponential for log-softmax) per element.
LONGEST = {"SoftmaxLastDimBackward": 1024, "LogSoftmaxLastDimBackward": 512,
           "RmsNormLastDimBackward": 1024, "LayerNormLastDimBackward": 1024}


@hints
def gradient_hints(fmt):
    """Upstream values: zeros and ones (a gradient that does not depend on the output), halves,
    and a value whose product with a softmax output cancels against the row's sum."""
    return [0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1024.0]


def _forward_values(op_kind: str, i: int, shape, rng: Generator, choice: int) -> np.ndarray:
    """Float64 values of operand i as a forward pass would hand them to the backward."""
    scale = SCALES[choice % len(SCALES)]
    if i == 1 or 0 in shape:  # the upstream gradient
        return rng.normal(0.0, 1.0, shape) * scale
    if op_kind in ("SoftmaxLastDimBackward", "LogSoftmaxLastDimBackward"):
        logits = rng.normal(0.0, 1.0 + 3 * (choice % 3), shape)
        return softmax_rows(logits, op_kind == "LogSoftmaxLastDimBackward")
    if op_kind == "PowIElementwiseBackward":
        x = rng.uniform(-2.0, 2.0, shape)
        return pick(x, rng.random(shape) < 0.1, np.zeros(shape))
    return OFFSETS[choice % len(OFFSETS)] + rng.normal(0.0, 1.0, shape) * scale


def _forward_operand(op_kind: str, i: int, dtype: str, shape):
    from numerics.formats import get_format

    t = get_format(dtype).numpy_dtype
    return st.builds(
        lambda seed, choice: _forward_values(op_kind, i, tuple(shape), generator(seed), choice).astype(t),
        SEED, st.integers(0, 59))


def draw_input(opdef, i, dtype, shapes, params):
    """Half the operands as a forward hands them over, half edge-biased."""
    from numerics.values import value_array

    shape = tuple(shapes[i])
    if i == 1:
        edge_hints = gradient_hints(dtype)
    elif opdef.op_kind in ("RmsNormLastDimBackward", "LayerNormLastDimBackward"):
        edge_hints = norm_hints(dtype)
    else:
        edge_hints = softmax_hints(dtype) if opdef.op_kind in ROW_PARAMS else opdef.hints(dtype)
    return st.one_of(_forward_operand(opdef.op_kind, i, dtype, shape),
                     value_array(dtype, shape, tuple(edge_hints)))


def draw_shapes(draw, contract, opdef, budget):
    """Both operands of one shape; a row op's params follow it (``free_shapes``)."""
    return free_shapes(draw, contract, opdef, budget)


@st.composite
def _long_backward(draw, contract, opdef, dtypes, longest: int, operand):
    """One or two long rows: the first operand follows a long-row pattern (``numerics.long_rows``,
    where a too-narrow accumulator of Σ g·y or Σ x² shows), the gradient is random or equal."""
    n, pattern, value, rng = draw_row(draw, longest, (*PATTERNS, "offset"))
    rows = draw(st.integers(1, 2))
    shape = (n,) if rows == 1 else (rows, n)
    g_pattern = draw(st.sampled_from(("random", "equal", "cancelling")))
    params = opdef.params.draw(draw, shape, contract.op_params, True)

    def first(count):
        return row_values(pattern, count, dtypes[0], rng, value)

    def second(count):
        return row_values(g_pattern, count, dtypes[1], rng, 1.0)

    a = draw(operand_span(operand, contract.inputs[0], dtypes[0], shape, first))
    b = draw(operand_span(operand, contract.inputs[1], dtypes[1], shape, second))
    return [a, b], params


def long_case(contract, opdef, dtypes, longest, operand):
    """The row ops' long rows; PowI's backward has none (it accumulates nothing)."""
    if opdef.op_kind not in ROW_PARAMS:
        return None
    return _long_backward(contract, opdef, dtypes, min(longest, LONGEST[opdef.op_kind]), operand)
