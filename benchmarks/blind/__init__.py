"""Blind rounds: how often ``verified`` survives an independent oracle.

``python -m benchmarks.blind freeze ROUND`` freezes a round's cases (SHA-256 of every file,
date, tool commit); ``python -m benchmarks.blind run ROUND`` runs every candidate through
``derivative batch`` and every oracle separately, and prints the figures. See
benchmarks/README.md for the case format and how to add a round.
"""
