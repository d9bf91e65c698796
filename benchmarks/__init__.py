"""The project's benchmarks (not part of the package; run from the repository root)."""
