"""The shared numerics, the lower floor of the Judge: the FKC formats as exact bit formats
(``numerics.formats``), correct rounding into them (``numerics.rounding``), ULP arithmetic
(``numerics.ulp``) and edge-biased value drawing (``numerics.values``, ``numerics.long_rows``).

The families (``oracles``) and the harness (``judge``) both build on these; nothing here imports
either of them (an import-linter contract in ``pyproject.toml``), so the arithmetic every verdict
trusts depends on nothing it is used to judge. Importing this package imports nothing else.
"""
