"""The families of OpKinds, one package (or module) each, every one exporting ``FAMILY``
(``oracles.family.Family``): its OpKinds' table rows and reference evaluation, how it draws its
tied shapes and constrained values, its long cases, how its outputs map to its inputs, its
output shape rules and its sizes for ``judge measure``.

elementwise, reductions, matmul, cumsum, cast, movement, lastdim. ``oracles.table`` lists them.
"""
