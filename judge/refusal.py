"""Running an error input (SPEC §4 "Error inputs"): the kernel must refuse it.

The call gets fresh copies of the inputs and poison-filled outputs sized for the valid case the
error input was made from. A refusal is an exception from the adapter or the library (in the
worker or in process), after which every output still holds the poison and every input its
bits. Anything else fails ``accepts_invalid``: a result returned without an error, an output
or input written before the error, a worker that died (a segfault, an abort) or hung.
"""

from __future__ import annotations

import numpy as np

from judge.api import Backend, KernelCall
from judge.contracts.model import Contract
from judge.executor import Finding, _bits, _fresh, poison_output, run_calls
from judge.sandbox import BackendDied
from numerics.values import POISON_BITS

CHECK = "accepts_invalid"


def refused(backend: Backend, contract: Contract, inputs, params: dict, out_shapes, out_dtypes,
            *, what: str, shown: str, case_id: str = "") -> list[Finding]:
    """[] if ``backend`` refused the error input ``inputs``; else the ``accepts_invalid``
    finding, saying ``what`` rule the input breaks and showing it (``shown``)."""
    call = KernelCall([_fresh(t) for t in inputs], dict(params),
                      [poison_output(s, d) for s, d in zip(out_shapes, out_dtypes, strict=True)],
                      list(out_dtypes), case_id)
    try:
        (result, _), = run_calls(backend, contract, [call])
    except BackendDied as died:
        if died.check not in ("crash", "timeout"):
            raise  # no worker to run it in: the item's error, not the kernel's
        how = "hung" if died.check == "timeout" else "crashed"
        return [_finding(f"{backend.name} {how} instead of refusing it ({died.reason})", what, shown)]
    written = _written(call, inputs)
    if isinstance(result, BaseException):
        if not written:
            return []
        return [_finding(f"{backend.name} raised ({_one_line(result)}) but first wrote {written}",
                         what, shown)]
    tail = f", and wrote {written}" if written else ""
    return [_finding(f"{backend.name} returned without an error{tail}", what, shown)]


def _finding(outcome: str, what: str, shown: str) -> Finding:
    return Finding(CHECK, f"{CHECK}: an error input ({what}) must be refused with an error and "
                          f"nothing written; {outcome}. The input:\n{shown}")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:200]


def _written(call: KernelCall, before) -> str:
    """What the call wrote: outputs that lost the poison, inputs that changed; "" if nothing."""
    parts = []
    for i, out in enumerate(call.outputs):
        changed = int((_bits(out.base, out.dtype) != POISON_BITS[out.dtype]).sum())
        if changed:
            parts.append(f"{changed} element(s) of output {i}")
    for k, (was, now) in enumerate(zip(before, call.inputs, strict=True)):
        if not np.array_equal(_bits(was.base, was.dtype), _bits(now.base, now.dtype)):
            parts.append(f"input {k}'s buffer")
    return ", ".join(parts)
