"""gm_engine: a deterministic rules engine for tabletop games narrated by a language model.

The engine owns every number, die and secret; a model only narrates and voices
characters through typed tool calls. The engine itself never imports ``openai``:
that lives in :mod:`gm_engine.llm` alone.
"""

#: The engine's version, which every transcript header records. The one place it is written:
#: ``pyproject.toml`` reads it from here when the package is built (``[tool.setuptools.dynamic]``),
#: so that ``gm`` need not look its own installation up at every start.
__version__ = "0.1.0"

__all__ = ["__version__"]
