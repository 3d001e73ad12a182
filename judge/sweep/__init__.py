"""Exhaustive sweeps (SPEC §7 ``judge sweep``): every input of a 16-bit format, dense pair grids
for binary kernels, and all 2^32 F32 inputs on a CUDA device.

- ``judge.sweep.inputs``: the input sets (every bit pattern; the documented pair grid).
- ``judge.sweep.tables``: oracle tables, computed once by the pure oracle and cached on disk.
- scoring: ``judge.scoring.vector`` (the rulebook on whole arrays; ``judge.scoring.tally`` for F32).
- ``judge.sweep.run``: one sweep of a contract on a backend, as a result row.
- ``judge.sweep.gpu_f32``: exhaustive F32 sweeps on CUDA, with an F64 reference
  (``judge.sweep.f32_reference``) certified against
  the pure oracle near rounding boundaries.

Importing this package does no work.
"""
