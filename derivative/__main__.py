"""``python -m derivative``: the same CLI as the ``derivative`` console script."""

from derivative.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
