"""The version of Arbiter: the one source (pyproject.toml reads it; the API reports it)."""

__version__ = "0.1.0"
