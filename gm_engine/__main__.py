"""``python -m gm_engine`` runs the ``gm`` command."""

from gm_engine.cli import run

run()
