"""What drives a judgement: ``judge.drivers.engine`` runs the search's Hypothesis engine (the
search itself is ``judge.runner``; the sweeps are ``judge.sweep``).

Importing this package does no work.
"""
