"""The scripts that run an agent framework for one trial (see benchmark.harness._framework).

They run in the framework's own environment, on its Python, never in vwt's process: each
imports only the standard library, its framework and ``_driver`` (beside it), reads the
trial from the file named by its first argument and writes its result where that says.
"""
