"""Model backends. :mod:`gm_engine.llm.base` holds the wire-free types every backend shares;
only :mod:`gm_engine.llm.openai_backend` imports ``openai``."""
