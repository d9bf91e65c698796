"""The package version, in a core module so every layer may read it (the layer rules
forbid layers from importing the top-level package's ``__init__``)."""

__version__ = "0.1.0"
