"""``python -m derivative``: the same CLI as the ``derivative`` console script."""

from derivative._cli_entry import main

if __name__ == "__main__":
    raise SystemExit(main())
