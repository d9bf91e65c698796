"""The project's performance benchmarks (not installed; ``run_all`` runs them all).

A package so that ``python -m benchmarks.run_all`` and ``run_all``'s imports of
``benchmarks.<name>`` find these files first, whatever else is on the path.
"""
