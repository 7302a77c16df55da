"""gm_engine: a deterministic rules engine for tabletop games narrated by a language model.

The engine owns every number, die and secret; a model only narrates and voices
characters through typed tool calls. The engine itself never imports ``openai``:
that lives in :mod:`gm_engine.llm` alone.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gm_engine")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
