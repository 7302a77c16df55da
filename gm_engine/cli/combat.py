"""``gm combat``: a whole fast-combat fight on the offline side, balance figures, and file checks.

``gm combat demo --seed S`` plays a party with spells against a mixed group, choosing
for the player with a fixed, simple policy, and prints every pause as the player would
see it: each log under its label (BATTLE_SETUP, ROLL_LOG, BATTLE_JUDGE, NARRATIVE).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from pydantic import ValidationError

from gm_engine.cli._errors import failed
from gm_engine.combat import (
    Battle,
    CastSpell,
    CombatError,
    CombatOptions,
    Encounter,
    EncounterKind,
    EndBattle,
    Judge,
    Narrate,
    NextRound,
    Phase,
    RollDice,
    SetSituationalBonus,
    Spell,
    StepResult,
    TargetCharacter,
    TargetEnemy,
    create_auto,
    create_character,
    make_enemy,
    render,
    storage,
)
from gm_engine.combat.actions import Action
from gm_engine.combat.balance import balance_table, format_table
from gm_engine.combat.characters import Character, parse_rank
from gm_engine.combat.errors import StorageError
from gm_engine.dice.result import Locale
from gm_engine.dice.source import SeededSource
from gm_engine.messages import DEFAULT_LOCALE, locale_from_env
from gm_engine.messages import render as render_message
from gm_engine.messages.texts import (
    BadOptions,
    CombatDemoEnd,
    CombatDemoEnemies,
    CombatDemoHighGround,
    CombatDemoParty,
    CombatDemoRound,
    CombatDemoStopped,
    CombatRefused,
    CombatSimulateTotal,
    FieldProblem,
    NotAChoice,
    NotACombatFile,
    NotAWholeNumber,
    SaveFileProblem,
    SaveNotJson,
    SimulateFights,
    SimulateSizes,
)
from gm_engine.messages.validation import validation_message

#: A fight that has not ended after this many rounds is stopped (none should get near it).
MAX_ROUNDS = 30


def register(subparsers: Any) -> None:
    """Add ``gm combat``."""
    combat = subparsers.add_parser("combat", help="fast party-vs-party combat (高速戦闘ルール)")
    sub = combat.add_subparsers(dest="combat_command", metavar="SUBCOMMAND")
    demo = sub.add_parser("demo", help="play a whole fight round by round, offline")
    demo.add_argument("--seed", type=int, default=5, help="seed of the dice (default 5)")
    demo.add_argument(
        "--options", default=None, help="rule options as JSON, e.g. '{\"mana_shield_amount\": 4}'"
    )
    demo.add_argument("--hash", action="store_true", help="print the state hash after every step")
    demo.set_defaults(handler=_demo)
    simulate = sub.add_parser(
        "simulate",
        help="play many helper-proposed fights without spells; print win rate, rounds and PCs down per cell",
    )
    simulate.add_argument("--ranks", default="一般人,駆け出し,熟練,英雄", help="ranks, comma separated")
    simulate.add_argument("--sizes", default="1,2,3,4", help="party sizes (おまかせ PCs), comma separated")
    simulate.add_argument(
        "--kind", default="", help="雑魚戦, エリート戦 or ボス戦, comma separated (default all)"
    )
    simulate.add_argument("--fights", type=int, default=200, help="fights per cell (default 200)")
    simulate.add_argument("--seed", type=int, default=0, help="seed of the first fight (then +1 each)")
    simulate.add_argument(
        "--options", default=None, help='rule options as JSON, e.g. \'{"encounter_basis": "side_total"}\''
    )
    simulate.set_defaults(handler=_simulate)
    show = sub.add_parser("show", help="show a saved character, party or encounter file")
    show.add_argument("file")
    show.set_defaults(handler=_show)
    combat.set_defaults(handler=lambda args: (combat.print_help(), 2)[1])


def demo_party() -> tuple[Character, ...]:
    """The demo party: a fighter, a mage and a healer (おまかせ)."""
    return (
        create_character("ガロウ", "熟練", "大剣", "板金鎧"),
        create_character("リゼ", "熟練", "短剣", "革", spells=["火弾", "雷撃", "予見"]),
        create_auto("ミナ", "駆け出し"),
    )


def demo_encounter() -> Encounter:
    """The demo enemies: an ogre chief, an armoured elite and a regenerating goblin."""
    return Encounter(
        enemies=(
            make_enemy("オーガ", "ボス", 9, 20, [("ap", 1)]),
            make_enemy("黒騎士", "エリート", 6, 12, [("armour", 1)]),
            make_enemy("ゴブリン", "雑魚", 4, 5, [("regeneration", 2)]),
        )
    )


def choose(battle: Battle, locale: Locale = DEFAULT_LOCALE) -> list[Action]:
    """The demo player's decisions at the current pause (a fixed policy, for show; the
    reason of a bonus in ``locale``)."""
    party = {c.name: c for c in battle.party}
    phase = battle.phase
    if phase is Phase.SETUP:
        actions: list[Action] = []
        standing = [e for e in battle.enemies if e.standing]
        weakest = min(standing, key=lambda e: (e.hp, e.name))
        actions.append(TargetEnemy(enemy=weakest.name))
        exposed = min((c for c in battle.party if c.standing), key=lambda c: (c.protection, c.name))
        actions.append(TargetCharacter(character=exposed.name))  # the GM: the least armoured is hit
        if battle.round_number == 1 and party["ガロウ"].standing:
            reason = render_message(CombatDemoHighGround(), locale)
            actions.append(SetSituationalBonus(character="ガロウ", bonus=2, reason=reason))
        mage = party["リゼ"]
        if mage.standing and mage.slots_left > 1:
            spell = Spell.FIREBALL if battle.round_number == 1 else Spell.LIGHTNING
            actions.append(CastSpell(caster="リゼ", spell=spell))
        return [*actions, RollDice()]
    if phase is Phase.ROLL:
        pc_ap, enemy_ap = battle.side_ap()
        actions = []
        mage = party["リゼ"]
        if pc_ap < enemy_ap and mage.standing and mage.slots_left > 0:
            actions.append(CastSpell(caster="リゼ", spell=Spell.FORESIGHT))
        return [*actions, Judge()]
    if phase is Phase.JUDGE:
        return [Narrate()]
    if phase is Phase.NARRATIVE:
        healer = party["ミナ"]
        hurt = [c for c in battle.party if c.standing and c.hp <= c.max_hp // 2]
        if battle.outcome is None and hurt and healer.standing and healer.slots_left > 0:
            return [NextRound(), CastSpell(caster="ミナ", spell=Spell.HEAL, target=hurt[0].name)]
        return [EndBattle() if battle.outcome is not None else NextRound()]
    return []


def _print_step(battle: Battle, step: StepResult, with_hash: str | None, locale: Locale) -> None:
    for event in step.events:
        print(f"  > {render.engine_line(event, locale)}")
    print(render_message(CombatDemoRound(step.label, step.round), locale))
    # the step's text is the engine's Japanese; another locale's is written from the state
    print(step.text if locale == DEFAULT_LOCALE else battle.log_text(locale))
    if with_hash:
        print(f"[state {with_hash[:16]}]")


def rule_options(text: str | None) -> CombatOptions:
    """The rule options given as ``--options`` JSON (the defaults without).

    Raises:
        CombatError: not JSON, an option the rules do not have, or a value out of its range;
            the reason names the option, what was wrong and what is accepted.
    """
    if not text:
        return CombatOptions()
    try:
        return CombatOptions.model_validate_json(text)
    except ValidationError as exc:
        raise CombatError(BadOptions(validation_message(exc, CombatOptions))) from None


def _demo(args: argparse.Namespace) -> int:
    try:
        options = rule_options(args.options)
    except CombatError as exc:
        print(failed("gm combat demo", exc), file=sys.stderr)
        return 2
    party = demo_party()
    encounter = demo_encounter()
    locale = locale_from_env()
    print(render_message(CombatDemoParty(), locale))
    for member in party:
        print(render.master_data(member, locale))
        print()
    print(render_message(CombatDemoEnemies(), locale))
    for enemy in encounter.enemies:
        print(render.enemy_line(enemy, locale))
    source = SeededSource(args.seed)
    battle = Battle.start(party, encounter, source=source, options=options)
    _print_step(battle, battle.current_log(), battle.state_hash() if args.hash else None, locale)
    while not battle.is_over:
        if battle.round_number > MAX_ROUNDS:
            print(render_message(CombatDemoStopped(MAX_ROUNDS), locale))
            return 1
        for action in choose(battle, locale):
            print(f"\n>>> {action.model_dump_json(exclude_none=True)}")
            try:
                step = battle.apply(action)
            except CombatError as exc:  # the policy is simple; show a refusal as the player would
                print(f"  {render_message(CombatRefused(exc.describe(locale)), locale)}")
                continue
            if step.label == "BATTLE_SETUP" and not isinstance(action, NextRound):
                for event in step.events:
                    print(f"  > {render.engine_line(event, locale)}")
                continue
            _print_step(battle, step, battle.state_hash() if args.hash else None, locale)
    print(render_message(CombatDemoEnd(len(source.history), battle.state_hash()), locale))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    try:
        ranks = [parse_rank(r.strip()) for r in args.ranks.split(",") if r.strip()]
        sizes = [_size(n) for n in args.sizes.split(",") if n.strip()]
        kinds = [_fight_kind(k.strip()) for k in args.kind.split(",") if k.strip()] or list(EncounterKind)
        options = rule_options(args.options)
        if not ranks or not sizes or not all(1 <= n <= 6 for n in sizes):
            raise CombatError(SimulateSizes())
        if not 1 <= args.fights <= 100_000:
            raise CombatError(SimulateFights())
    except ValueError as exc:  # CombatError, pydantic's ValidationError, a bad number or kind
        print(failed("gm combat simulate", exc), file=sys.stderr)
        return 2
    started = time.process_time()
    cells = balance_table(
        sizes, kinds=kinds, ranks=ranks, fights=args.fights, seed=args.seed, options=options
    )
    elapsed = time.process_time() - started
    print(format_table(cells))
    total = args.fights * len(cells)
    last = args.seed + args.fights - 1
    summary = CombatSimulateTotal(total, args.fights, args.seed, last, f"{elapsed:.1f}")
    print(render_message(summary, locale_from_env()))
    return 0


def _size(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CombatError(FieldProblem("--sizes", NotAWholeNumber(text.strip()))) from None


def _fight_kind(text: str) -> EncounterKind:
    try:
        return EncounterKind(text)
    except ValueError:
        known = ", ".join(k.value for k in EncounterKind)
        raise CombatError(FieldProblem("--kind", NotAChoice(text, known))) from None


def _show(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8") as handle:
            text = handle.read()
        head = json.loads(text) if text.strip().startswith("{") else {}
        kind = str(head.get("format", "")) if isinstance(head, dict) else ""
    except json.JSONDecodeError as exc:
        problem = StorageError(SaveFileProblem(args.file, SaveNotJson(exc.lineno, exc.colno)))
        print(failed("gm combat show", problem), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or JSON nested too deeply
        print(failed("gm combat show", exc), file=sys.stderr)
        return 2
    try:
        if kind.endswith(".character"):
            print(render.master_data(storage.loads_character(text, args.file)))
        elif kind.endswith(".party"):
            for member in storage.loads_party(text, args.file):
                print(render.master_data(member))
                print()
        elif kind.endswith(".encounter"):
            for enemy in storage.loads_encounter(text, args.file).enemies:
                print(render.enemy_line(enemy))
        elif kind.endswith(".battle"):
            battle = storage.loads_battle(text, where=args.file)
            print(battle.current_log().text)
        else:
            problem = StorageError(SaveFileProblem(args.file, NotACombatFile()))
            print(failed("gm combat show", problem), file=sys.stderr)
            return 2
    except CombatError as exc:
        print(failed("gm combat show", exc), file=sys.stderr)
        return 2
    return 0
