"""The ``gm`` command imports a command's package only when that command runs."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import gm_engine.cli
from gm_engine.cli import COMMANDS, build_parser

#: What ``gm roll`` has no use for: the other games, the sessions and the model client.
HEAVY = (
    "gm_engine.werewolf", "gm_engine.combat", "gm_engine.transcripts", "gm_engine.sessions",
    "gm_engine.llm", "gm_engine.tools", "openai", "httpx", "rich", "jinja2", "tenacity",
)

# Runs `gm roll 1D6` in a fresh interpreter, then prints the loaded module names as JSON.
_PROBE = """
import json, sys
from gm_engine.cli import main
status = main(["roll", "--seed", "1", "1D6"])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def _modules_after(probe: str) -> tuple[int, list[str], str]:
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    *printed, last = proc.stdout.strip().splitlines()
    report = json.loads(last)
    return report["status"], report["modules"], "\n".join(printed)


def test_roll_imports_none_of_the_heavy_packages() -> None:
    status, modules, printed = _modules_after(_PROBE)
    assert status == 0 and printed.startswith("(1D6) ＞ ")
    assert "gm_engine.dice.engine" in modules  # the probe sees what the command loaded
    loaded = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert loaded == [], f"gm roll imported {loaded}"


def test_the_probe_sees_a_heavy_import() -> None:
    """The same probe after a command that needs the werewolf package reports it."""
    probe = _PROBE.replace('["roll", "--seed", "1", "1D6"]', '["werewolf", "simulate", "--games", "1"]')
    status, modules, _ = _modules_after(probe)
    assert status == 0 and "gm_engine.werewolf.game" in modules


#: What replaying any session has no use for, only going on live: the resumer, the recorder,
#: the play commands' shared tail, the terminal human, the retry policy; and the cipher, which
#: only a game still running (its private lines sealed) needs, not a finished one.
LIVE_ONLY = (
    "gm_engine.transcripts.resume", "gm_engine.transcripts.record", "gm_engine.cli._play",
    "gm_engine.cli.transcripts", "gm_engine.sessions.humans", "gm_engine.llm.retry",
    "cryptography.hazmat.primitives.ciphers",
)

#: What replaying a werewolf game has no use for: the servers and their protocols, the model
#: client, the terminal renderer, the retry library, the dice parser and its game systems.
NOT_FOR_REPLAY = (
    "mcp", "starlette", "uvicorn", "websockets", "psycopg", "openai", "httpx", "rich", "tenacity",
    "gm_engine.serve", "gm_engine.aiwolf", "gm_engine.mcp_server", "gm_engine.combat",
    "gm_engine.dice.engine", "gm_engine.dice.systems", "gm_engine.dice.commands",
    # the offline seats' phrase books: the recorded answers are replayed, no offline words composed
    "gm_engine.sessions.voices", "gm_engine.sessions.narration", *LIVE_ONLY,
)

_SHIPPED = Path(__file__).resolve().parents[1] / "transcripts"


def test_replay_imports_none_of_the_server_packages() -> None:
    """``gm replay`` of a shipped werewolf game loads the game and the transcript code only."""
    path = _SHIPPED / "werewolf_human_seer.jsonl"
    probe = _PROBE.replace('["roll", "--seed", "1", "1D6"]', f"[\"replay\", {str(path)!r}]")
    status, modules, printed = _modules_after(probe)
    assert status == 0 and f"{path}: 一致" in printed  # the player's language (ja by default)
    assert "gm_engine.werewolf.game" in modules and "gm_engine.transcripts.replay" in modules
    loaded = [m for m in modules if any(m == h or m.startswith(h + ".") for h in NOT_FOR_REPLAY)]
    assert loaded == [], f"gm replay imported {loaded}"


def _registered(module: str) -> dict[str, str | None]:
    """The subcommands ``module``'s ``register`` adds, with their help lines."""
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(f"gm_engine.cli.{module}").register(subparsers)
    return {action.dest: action.help for action in subparsers._choices_actions}


def test_the_command_table_matches_what_the_modules_register() -> None:
    modules = {c.module for c in COMMANDS}
    for module in sorted(modules):
        expected = {c.name: c.help for c in COMMANDS if c.module == module}
        assert _registered(module) == expected, f"gm_engine.cli.{module} and COMMANDS disagree"
    with_register = {
        info.name
        for info in pkgutil.iter_modules(gm_engine.cli.__path__)
        if not info.name.startswith("_")
        and hasattr(importlib.import_module(f"gm_engine.cli.{info.name}"), "register")
    }
    assert with_register == modules, "a command module missing from COMMANDS (or a row without a module)"


def test_every_command_parses_from_its_own_module_alone() -> None:
    for command in COMMANDS:
        parser = build_parser([command.name, "--help"])
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        assert sub.choices[command.name].add_help, f"{command.name} is still a stub"
        assert list(sub.choices) == [c.name for c in COMMANDS]


def test_the_version_is_a_constant_the_installation_agrees_with() -> None:
    """``gm_engine.__version__`` is written in the package (pyproject.toml reads it from there),
    so importing the package looks nothing up in the installation's metadata."""
    probe = "import sys, gm_engine; print(gm_engine.__version__, 'importlib.metadata' in sys.modules)"
    printed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert printed.split() == [importlib.metadata.version("gm_engine"), "False"]


def test_the_transcripts_package_gives_every_name_it_lists() -> None:
    """:mod:`gm_engine.transcripts` imports its modules when a name is first asked for."""
    import gm_engine.transcripts as package

    for name in package.__all__:
        value = getattr(package, name)
        assert getattr(value, "__name__", name) == name or name.isupper(), name
    with pytest.raises(AttributeError, match="no_such_name"):
        package.no_such_name  # noqa: B018


#: What replaying an adventure without a scenario (a fight) has no use for: the scenario
#: session, the scenarios' data models, their story engine and offline GM, the story tools.
NOT_FOR_A_FIGHT = (
    "gm_engine.sessions.adventure_scenario", "gm_engine.adventure.scenario", "gm_engine.adventure.story",
    "gm_engine.adventure.offline_gm", "gm_engine.tools.story",
    # the common dice commands the fight never rolled (it adds dice: add_dice alone is loaded)
    *(f"gm_engine.dice.commands.{name}" for name in (
        "barabara_dice", "tally_dice", "calc", "choice", "d66_dice", "repeat", "reroll_dice", "upper_dice",
        "version",
    )),
    *LIVE_ONLY,
)


def test_replaying_a_fight_imports_no_scenario_code() -> None:
    path = _SHIPPED / "adventure_fight_novice.jsonl"
    probe = _PROBE.replace('["roll", "--seed", "1", "1D6"]', f"[\"replay\", {str(path)!r}]")
    status, modules, printed = _modules_after(probe)
    assert status == 0 and f"{path}: 一致" in printed
    assert "gm_engine.sessions.adventure" in modules and "gm_engine.combat.battle" in modules
    loaded = [m for m in modules if any(m == h or m.startswith(h + ".") for h in NOT_FOR_A_FIGHT)]
    assert loaded == [], f"gm replay of a fight imported {loaded}"


def test_replaying_a_fight_builds_no_model_it_does_not_use() -> None:
    """The tools', events' and dice details' pydantic models are built when first used
    (``defer_build``), so a replay pays for the schemas of what it reads and checks only."""
    path = _SHIPPED / "adventure_fight_novice.jsonl"
    probe = _PROBE.replace('["roll", "--seed", "1", "1D6"]', f"[\"replay\", {str(path)!r}]").replace(
        '"modules": sorted(sys.modules)',
        '"modules": [name for name, model in [(n, getattr(sys.modules["gm_engine.tools.combat"], n)) '
        'for n in ("FleeTool", "Rest", "StartBattle", "CreateCharacter", "ShowStatus")] '
        "if model.__pydantic_complete__]",
    )
    status, built, printed = _modules_after(probe)
    assert status == 0 and f"{path}: 一致" in printed
    assert "ShowStatus" in built  # the probe sees a model the fight did use
    assert [name for name in built if name != "ShowStatus"] == [], f"a fight's replay built {built}"


# Runs `gm systems` as the console script does, then tells what run() left and how it ended.
_RUN_PROBE = """
import gc, sys
from gm_engine.cli import run
try:
    run(sys.argv[1:])
except SystemExit as end:
    print(repr(end.code), gc.get_freeze_count() > 0, gc.get_threshold(), file=sys.stderr)
"""


@pytest.mark.parametrize(("argv", "status"), [(["systems"], 0), (["roll"], 2), (["--version"], 0)])
def test_the_program_exits_with_mains_status_leaving_its_objects_to_the_process(
    argv: list[str], status: int
) -> None:
    proc = subprocess.run([sys.executable, "-c", _RUN_PROBE, *argv], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == f"{status!r} True {gm_engine.cli.PROGRAM_GC_THRESHOLDS}"


def test_the_console_script_and_python_m_run_the_program() -> None:
    (script,) = importlib.metadata.entry_points(group="console_scripts", name="gm")
    assert script.value == "gm_engine.cli:run"
    main_module = Path(gm_engine.cli.__file__).parent.parent / "__main__.py"
    assert "from gm_engine.cli import run\n\nrun()\n" in main_module.read_text(encoding="utf-8")
