"""The adventure GM's combat tools: character creation and status, every battle step, spells,
and outside a battle a day's rest and the [魔法変更: …] instruction.

A :class:`CombatTable` holds what these tools act on: the party, the battle in
progress (a :class:`~gm_engine.combat.battle.Battle`) and the session's one dice source.
:meth:`CombatTable.offers` gives the tools legal now, their choice fields narrowed to
the legal values the battle reports (``Battle.legal_actions``), so the model is only
ever offered what the rules allow; every change goes through the combat engine, which
refuses an illegal action (a :class:`~gm_engine.combat.errors.CombatError`) and leaves
its state unchanged; the handlers pass the refusal back to the model as
:class:`~gm_engine.tools.base.ModelRetry`.

Pauses: a tool whose result is a pause of the round (BATTLE_SETUP after
``start_battle`` or ``next_round``, ROLL_LOG after ``roll``, BATTLE_JUDGE after
``judge``) ends the GM's turn, so the turn goes back to the player.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from gm_engine.combat.actions import (
    Action,
    CastSpell,
    FightItOut,
    ResolveByNarrative,
    SetSituationalBonus,
    TargetCharacter,
    TargetEnemy,
    parse_action,
)
from gm_engine.combat.battle import Battle, StepResult, cast_out_of_combat, rest_party
from gm_engine.combat.characters import Character, Status, create_auto, create_character, create_unselected
from gm_engine.combat.enemies import Difficulty, EncounterKind, propose_encounter
from gm_engine.combat.equipment import ARMOURS, WEAPONS, Shield
from gm_engine.combat.errors import CombatError, IllegalActionError
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.combat.ranks import Rank
from gm_engine.combat.render import engine_line, master_data, party_status, session_status
from gm_engine.combat.spells import OUT_OF_COMBAT, HealingWaveMode, Spell
from gm_engine.combat.state import Phase
from gm_engine.dice.engine import evaluate
from gm_engine.dice.result import Locale
from gm_engine.dice.source import DiceSource
from gm_engine.dice.systems.registry import get_system
from gm_engine.messages import DEFAULT_LOCALE, render
from gm_engine.messages.texts import (
    BattleInProgress,
    CharacterDead,
    FleeAtSetup,
    FreeNameless,
    LogBullet,
    LogFleeFailure,
    LogFleeRoll,
    LogFleeSuccess,
    LogInBattle,
    LogRested,
    NoCharacterStatus,
    NoOneToRest,
    NoRestInBattle,
    NoSpellChangeInBattle,
    NoSuchCharacter,
)
from gm_engine.tools.base import ModelRetry, Offer, Tool, ToolOutput, retry_on, stripped_or

#: Steps that move a battle from one pause to the next, and whether the result is a pause
#: that hands the turn back to the player.
STEPS: dict[str, bool] = {"roll": True, "judge": True, "narrate": False, "next_round": True, "end": False}

#: The outcome recorded for a fight the party fled.
FLED = "逃走"

#: The most characters a player may create.
MAX_PARTY = 4


class StepOutput(BaseModel):
    """The structured result of a battle step: the label of the log it wrote (BATTLE_SETUP,
    ROLL_LOG, BATTLE_JUDGE, NARRATIVE, BATTLE_END, ...)."""

    model_config = ConfigDict(frozen=True)

    label: str


class FleeOutput(BaseModel):
    """The structured result of a flight: whether the party got away."""

    model_config = ConfigDict(frozen=True)

    fled: bool


#: A character's name: stripped; white space only gives "" here, which the table names the
#: adventure's nameless traveller in its own language (:class:`FreeNameless`).
CharacterName = Annotated[str, stripped_or("")]

#: What the enemies are called: stripped; white space only gives plain monsters.
EnemyName = Annotated[str, stripped_or("魔物")]


class CreateCharacter(Tool):
    """Create the player's character from the player's choices (rank, weapon, armour, shield,
    spells; one spell per slot: 駆け出し 2, 熟練 3, 英雄 5, 一般人 none)."""

    tool_name: ClassVar[str] = "create_character"
    name: CharacterName = Field(min_length=1, max_length=40)
    rank: str
    weapon: str
    armour: str
    shield: str
    spells: list[str] = Field(description="the spells known; at most the rank's slots")


class CreateCharacterPreset(Tool):
    """Create the player's character with a preset: 未選択 (weapon +1, armour 1, no magic) or
    おまかせ (weapon +2, armour 2, small shield, 1-2 spells)."""

    tool_name: ClassVar[str] = "create_character_preset"
    name: CharacterName = Field(min_length=1, max_length=40)
    rank: str
    preset: str


class ShowStatus(Tool):
    """Show the party's character sheets (and the enemies during a battle)."""

    tool_name: ClassVar[str] = "show_status"
    read_only: ClassVar[bool] = True
    idempotent: ClassVar[bool] = True


class StartBattle(Tool):
    """Start a fight: the engine designs the enemies from the party's strength (§2.3, §3)
    and shows the first BATTLE_SETUP; the turn then goes to the player."""

    tool_name: ClassVar[str] = "start_battle"
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    kind: str = Field(description="雑魚戦 (mobs), エリート戦 (elites) or ボス戦 (a boss)")
    difficulty: list[str] = Field(description="adjustments: 弱い, 強い, 長引く, 瞬殺 (usually none)")
    enemy_name: EnemyName = Field(
        min_length=1, max_length=16, description="what the enemies are called, e.g. ゴブリン"
    )


class BattleStep(Tool):
    """Move the battle on: roll (after the player's 『戦闘開始』), judge, narrate (get the
    facts to narrate), next_round, or end (once a side has fallen)."""

    tool_name: ClassVar[str] = "battle_step"
    destructive: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    step: str


class SituationalBonus(Tool):
    """At SETUP, grant one PC a situational AP bonus this round for a clever plan (capped by rank)."""

    tool_name: ClassVar[str] = "situational_bonus"
    idempotent: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    character: str
    bonus: int
    reason: str = Field(max_length=200)


class TargetEnemyTool(Tool):
    """Name the enemy that takes the damage if the PC side wins this round."""

    tool_name: ClassVar[str] = "target_enemy"
    idempotent: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    enemy: str


class TargetCharacterTool(Tool):
    """Name the PC the enemies strike if they win this round."""

    tool_name: ClassVar[str] = "target_character"
    idempotent: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    character: str


class CastSpellTool(Tool):
    """Cast a spell the player declared. ``target`` names a PC for 魔力盾, 治癒, 蘇生 and
    治癒の波動 in endure mode; ``amount`` is the HP 限界突破 converts; ``mode`` is 治癒の波動's
    halve or endure. Costs a slot (or, out of slots, a lasting cost)."""

    tool_name: ClassVar[str] = "cast_spell"
    destructive: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    caster: str
    spell: str
    target: str | None = None
    amount: int | None = None
    mode: str | None = None


class ResolveByNarrativeTool(Tool):
    """【ナラティブ優先の原則】: at the first SETUP, when the PCs overwhelm the enemies, end the
    fight without dice; nothing is spent."""

    tool_name: ClassVar[str] = "resolve_by_narrative"
    destructive: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput
    reason: str = Field(max_length=300)


class FightItOutTool(Tool):
    """At the first SETUP, record that the player wants the fight played out with dice (§0);
    【ナラティブ優先の原則】 is then refused for this battle."""

    tool_name: ClassVar[str] = "fight_it_out"
    idempotent: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = StepOutput


class FleeTool(Tool):
    """At SETUP, try to flee as the player asked: 3d6 行為判定 against the fight's target.
    Success ends the fight (the party keeps its HP); failure means this round is fought
    (the engine rolls it)."""

    tool_name: ClassVar[str] = "flee"
    destructive: ClassVar[bool] = True
    output_model: ClassVar[type[BaseModel] | None] = FleeOutput


class HealOutOfCombat(Tool):
    """Outside a battle, cast 治癒 on one PC or 治癒の波動 on the whole party (costs a slot)."""

    tool_name: ClassVar[str] = "cast_out_of_combat"
    destructive: ClassVar[bool] = True
    caster: str
    spell: str
    target: str | None = None


class Rest(Tool):
    """Outside a battle, the party rests for a day: every living character's magic slots are
    refilled (§5.1; HP is not restored by resting)."""

    tool_name: ClassVar[str] = "rest"
    idempotent: ClassVar[bool] = True


class ChangeSpells(Tool):
    """Outside a battle, the player's [魔法変更: …] (§5.2): replace one character's spells known
    with this list (at most its slots)."""

    tool_name: ClassVar[str] = "change_spells"
    destructive: ClassVar[bool] = True
    idempotent: ClassVar[bool] = True
    character: str
    spells: list[str] = Field(description="the new spells known; at most the character's slots")


LogFunc = Callable[[str, str], None]


class CombatTable:
    """The party, the battle in progress and the dice the GM's combat tools act on.

    ``on_log(label, text)`` receives every log the player must see as the engine wrote
    it (character sheets, BATTLE_SETUP, ROLL_LOG, BATTLE_JUDGE, the end of a battle);
    ``on_change(step)`` is called after every accepted change (for dice and state events).
    The logs and the status are written in ``locale`` (the rules' terms stay Japanese).
    """

    def __init__(
        self,
        source: DiceSource,
        *,
        options: CombatOptions = DEFAULT_OPTIONS,
        on_log: LogFunc | None = None,
        on_change: Callable[[str], None] | None = None,
        on_finish: Callable[[str], None] | None = None,
        locale: Locale = DEFAULT_LOCALE,
    ) -> None:
        self.source = source
        self.locale = locale
        self.on_finish = on_finish
        #: The 3d6 target of fleeing, or None when fleeing is not offered (no scenario fight).
        self.flee_target: int | None = None
        self.options = options
        self.party: list[Character] = []
        self.battle: Battle | None = None
        self.outcomes: list[str] = []
        self.on_log = on_log
        self.on_change = on_change

    # -- reading ------------------------------------------------------------------------------

    def current_party(self) -> tuple[Character, ...]:
        """The party as it is now (inside a battle, the battle's copy)."""
        return self.battle.party if self.battle is not None else tuple(self.party)

    @property
    def phase(self) -> Phase | None:
        """The battle's pause, or None outside a battle."""
        return self.battle.phase if self.battle is not None else None

    def state_hash(self) -> str:
        """SHA-256 of the party and the battle state."""
        data = {
            "party": [c.model_dump(mode="json") for c in self.party],
            "battle": self.battle.state_hash() if self.battle is not None else None,
            "outcomes": self.outcomes,
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def status_text(self) -> str:
        """The party's compact status (§13.2) and, in a battle, its phase and the enemies."""
        party = self.current_party()
        if not party:
            return render(NoCharacterStatus(), self.locale)
        lines = [party_status(party, compact=True, locale=self.locale)]
        if self.battle is not None:
            lines.append(render(LogInBattle(self.battle.round_number, self.battle.phase.value), self.locale))
            bullet = render(LogBullet(), self.locale)
            lines.extend(f"{bullet}{e.name} HP {e.hp}/{e.max_hp}" for e in self.battle.enemies)
        return "\n".join(lines)

    def session_footer(self) -> str:
        """The 【セッション状況】 footer with 【魔法スロットの残り】 (§5.2), or "" before any character."""
        party = self.current_party()
        return session_status(party, self.locale) if party else ""

    # -- the offers of the moment ---------------------------------------------------------------

    def offers(self) -> list[Offer[Any]]:
        """The combat tools legal now, with enums of the legal choices."""
        offers: list[Offer[Any]] = [Offer.of(ShowStatus, self._show_status)]
        if self.battle is None:
            if len(self.party) < MAX_PARTY:
                ranks = [r.value for r in Rank]
                offers.append(
                    Offer.of(
                        CreateCharacter,
                        self._create,
                        rank=ranks,
                        weapon=list(WEAPONS),
                        armour=list(ARMOURS),
                        shield=[s.value for s in Shield],
                        spells=[s.value for s in Spell],
                    )
                )
                presets = ["未選択", "おまかせ"]
                preset = Offer.of(CreateCharacterPreset, self._create_preset, rank=ranks, preset=presets)
                offers.append(preset)
            if any(c.standing for c in self.party):
                offers.append(
                    Offer.of(
                        StartBattle,
                        self._start_battle,
                        kind=[k.value for k in EncounterKind],
                        difficulty=[d.value for d in Difficulty],
                    )
                )
            living = [c.name for c in self.party if c.status is not Status.DEAD]
            if any(c.slots_left < c.max_slots for c in self.party if c.status is not Status.DEAD):
                offers.append(Offer.of(Rest, self._rest))
            learners = [c.name for c in self.party if c.max_slots > 0 and c.name in living]
            if learners:
                spells = [s.value for s in Spell]
                offers.append(Offer.of(ChangeSpells, self._change_spells, character=learners, spells=spells))
            casters = [c.name for c in self.party if c.standing and set(c.spells) & OUT_OF_COMBAT]
            if casters:
                offers.append(
                    Offer.of(
                        HealOutOfCombat,
                        self._heal_out,
                        caster=casters,
                        spell=[s.value for s in sorted(OUT_OF_COMBAT)],
                        target=[c.name for c in self.party],
                    )
                )
            return offers
        legal = self.battle.legal_actions()
        steps = [a.kind for a in legal if a.kind in STEPS]
        if steps:
            offers.append(Offer.of(BattleStep, self._step, step=steps))
        bonuses = [a for a in legal if isinstance(a, SetSituationalBonus)]
        if bonuses:
            offers.append(
                Offer.of(
                    SituationalBonus,
                    self._bonus,
                    character=[a.character for a in bonuses],
                    bonus=sorted({a.bonus for a in bonuses}),
                )
            )
        enemies = [a.enemy for a in legal if isinstance(a, TargetEnemy)]
        if enemies:
            offers.append(Offer.of(TargetEnemyTool, self._target_enemy, enemy=enemies))
        characters = [a.character for a in legal if isinstance(a, TargetCharacter)]
        if characters:
            offers.append(Offer.of(TargetCharacterTool, self._target_character, character=characters))
        casts = [a for a in legal if isinstance(a, CastSpell)]
        if casts:
            # each field's enum is the values some legal cast uses; which combinations are
            # legal is the engine's to say (it refuses the others, naming the rule)
            targets = [a.target for a in casts if a.target is not None]
            legal_choices: dict[str, list[str] | list[int]] = {
                "caster": [a.caster for a in casts],
                "spell": [a.spell.value for a in casts],
                "target": targets or [c.name for c in self.battle.party],
            }
            amounts = sorted({a.amount for a in casts if a.amount is not None})
            if amounts:
                legal_choices["amount"] = amounts
            modes = sorted({a.mode.value for a in casts if a.mode is not None})
            if modes:
                legal_choices["mode"] = modes
            offers.append(Offer.of(CastSpellTool, self._cast, **legal_choices))
        if any(isinstance(a, ResolveByNarrative) for a in legal):
            offers.append(Offer.of(ResolveByNarrativeTool, self._resolve_by_narrative))
        if any(isinstance(a, FightItOut) for a in legal):
            offers.append(Offer.of(FightItOutTool, self._fight_it_out))
        if self.flee_target is not None and self.battle.phase is Phase.SETUP:
            offers.append(Offer.of(FleeTool, self._flee))
        return offers

    # -- handlers --------------------------------------------------------------------------------

    def _changed(self, step: str) -> None:
        if self.on_change is not None:
            self.on_change(step)

    def _log(self, label: str, text: str) -> None:
        if self.on_log is not None:
            self.on_log(label, text)

    def add_character(self, character: Character) -> None:
        """Add a character made outside the tools (the engine's creation dialogue); its sheet
        is shown.

        Raises:
            ModelRetry: a character of that name exists already.
        """
        self._add(character)

    def _add(self, character: Character) -> ToolOutput:
        if any(c.name == character.name for c in self.party):
            raise ModelRetry(f"there is already a character called {character.name!r}")
        self.party.append(character)
        sheet = master_data(character, self.locale)
        self._log("CHARACTER", sheet)
        self._changed("create_character")
        return ToolOutput(text=f"created:\n{sheet}", data={"character": character.model_dump(mode="json")})

    @retry_on(CombatError)
    def _create(self, args: CreateCharacter) -> ToolOutput:
        name = self._name_or_nameless(args.name)
        character = create_character(name, args.rank, args.weapon, args.armour, args.shield, args.spells)
        return self._add(character)

    def _name_or_nameless(self, name: str) -> str:
        return name or render(FreeNameless(), self.locale)

    @retry_on(CombatError)
    def _create_preset(self, args: CreateCharacterPreset) -> ToolOutput:
        make = create_auto if args.preset == "おまかせ" else create_unselected
        return self._add(make(self._name_or_nameless(args.name), args.rank))

    def _show_status(self, args: ShowStatus) -> ToolOutput:
        sheets = "\n\n".join(master_data(c, self.locale) for c in self.current_party()) or render(
            NoCharacterStatus(), self.locale
        )
        return ToolOutput(text=self.status_text() + "\n\n" + sheets)

    @retry_on(CombatError)
    def _start_battle(self, args: StartBattle) -> ToolOutput:
        return self.start_encounter(args.kind, args.difficulty, args.enemy_name)

    def start_encounter(
        self, kind: str, difficulty: Sequence[str], enemy_name: str, *, flee_target: int | None = None
    ) -> ToolOutput:
        """Start a fight designed by the encounter helper (§2.3, §3) and show its BATTLE_SETUP;
        ``flee_target`` offers fleeing (a scenario's fight).

        Raises:
            CombatError: no standing character, a battle in progress, or bad choices.
        """
        if self.battle is not None:
            raise IllegalActionError(BattleInProgress())
        proposal = propose_encounter(
            self.party,
            kind,
            list(difficulty),
            mob_name=enemy_name,
            elite_name=enemy_name,
            boss_name=enemy_name,
            options=self.options,
        )
        battle = Battle.start(self.party, proposal.encounter, source=self.source, options=self.options)
        self.battle = battle
        self.flee_target = flee_target
        log = battle.current_log()
        log_text = self._text_of(battle, log)
        self._log(log.label, log_text)
        self._changed("start_battle")
        return ToolOutput(
            text=f"{log_text}\n(敵の設計: {proposal.explanation})\n"
            "The turn passes to the player; wait for 『戦闘開始』 (or their declarations).",
            data={"label": log.label},
            ends_turn=True,
        )

    @retry_on(CombatError)
    def _flee(self, args: FleeTool) -> ToolOutput:
        battle = self._require_battle()
        if self.flee_target is None or battle.phase is not Phase.SETUP:
            raise IllegalActionError(FleeAtSetup())
        result = evaluate(f"3D6>={self.flee_target}", get_system("DiceBot"), source=self.source)
        assert result is not None  # a DiceBot command
        if result.success:
            text = f"{render(LogFleeRoll(result.text), self.locale)}\n{render(LogFleeSuccess(), self.locale)}"
            self._log("FLEE", text)
            self.party = list(battle.party)
            self.outcomes.append(FLED)
            self.battle = None
            self.flee_target = None
            self._changed("flee")
            if self.on_finish is not None:
                self.on_finish(FLED)
            return ToolOutput(text=text, data={"fled": True}, ends_turn=False)
        text = f"{render(LogFleeRoll(result.text), self.locale)}\n{render(LogFleeFailure(), self.locale)}"
        self._log("FLEE", text)
        self._changed("flee")
        rolled = self._apply(parse_action({"kind": "roll"}), "roll", pause=True)
        return ToolOutput(text=f"{text}\n{rolled.text}", data={"fled": False}, ends_turn=True)

    def _apply(self, action: Action, step: str, pause: bool = False) -> ToolOutput:
        battle = self._require_battle()
        result: StepResult = battle.apply(action)
        events = "".join(f"{line}\n" for line in self._event_lines(result.events))
        text = self._text_of(battle, result)
        if result.label != "NARRATIVE" and (pause or result.phase is Phase.ENDED):
            self._log(result.label, text)
        elif result.events:
            self._log("EVENT", events.rstrip())
        if result.phase is Phase.ENDED:
            self._finish(battle)
        self._changed(step)
        note = "\nThe turn passes to the player." if pause else ""
        return ToolOutput(text=f"{events}{text}{note}", data={"label": result.label}, ends_turn=pause)

    def _event_lines(self, events: Sequence[str]) -> list[str]:
        """The engine's lines about a step, each in the table's locale."""
        bullet = render(LogBullet(), self.locale)
        return [f"{bullet}{engine_line(e, self.locale)}" for e in events]

    def _text_of(self, battle: Battle, result: StepResult) -> str:
        """The log of a step in the table's locale (the engine writes the rules' Japanese)."""
        if self.locale == DEFAULT_LOCALE:
            return result.text
        return battle.log_text(self.locale)

    def _finish(self, battle: Battle) -> None:
        self.party = list(battle.party)
        outcome = battle.outcome.value if battle.outcome is not None else "中断"
        self.outcomes.append(outcome)
        self.battle = None
        if self.on_finish is not None:
            self.on_finish(outcome)

    def _require_battle(self) -> Battle:
        if self.battle is None:
            raise ModelRetry("there is no battle in progress; start one with start_battle")
        return self.battle

    @retry_on(CombatError)
    def _step(self, args: BattleStep) -> ToolOutput:
        return self._apply(parse_action({"kind": args.step}), args.step, pause=STEPS.get(args.step, False))

    @retry_on(CombatError)
    def _bonus(self, args: SituationalBonus) -> ToolOutput:
        action = SetSituationalBonus(character=args.character, bonus=args.bonus, reason=args.reason)
        return self._apply(action, "situational_bonus")

    @retry_on(CombatError)
    def _target_enemy(self, args: TargetEnemyTool) -> ToolOutput:
        return self._apply(TargetEnemy(enemy=args.enemy), "target_enemy")

    @retry_on(CombatError)
    def _target_character(self, args: TargetCharacterTool) -> ToolOutput:
        return self._apply(TargetCharacter(character=args.character), "target_character")

    @retry_on(CombatError)
    def _cast(self, args: CastSpellTool) -> ToolOutput:
        action = CastSpell(
            caster=args.caster,
            spell=Spell(args.spell),
            target=args.target,
            amount=args.amount,
            mode=HealingWaveMode(args.mode) if args.mode is not None else None,
        )
        return self._apply(action, "cast")

    @retry_on(CombatError)
    def _resolve_by_narrative(self, args: ResolveByNarrativeTool) -> ToolOutput:
        return self._apply(ResolveByNarrative(reason=args.reason), "resolve_by_narrative")

    def rest(self) -> str:
        """A day's rest outside a battle (§5.1): every living character's slots are refilled.

        Raises:
            IllegalActionError: a battle is in progress, or there is no character.
        """
        if self.battle is not None:
            raise IllegalActionError(NoRestInBattle())
        if not self.party:
            raise IllegalActionError(NoOneToRest())
        self.party = list(rest_party(self.party))
        text = render(LogRested(), self.locale) + "\n" + session_status(self.party, self.locale)
        self._log("REST", text)
        self._changed("rest")
        return text

    def change_spells(self, name: str, spells: Sequence[str]) -> Character:
        """The [魔法変更: …] meta instruction (§5.2) outside a battle: ``name``'s new spells.

        Raises:
            CombatError: a battle is in progress, no such character, the character is dead
                (:class:`IllegalActionError`), or the spells break §5.1/§6.2 (unknown, repeated,
                more than the slots).
        """
        if self.battle is not None:
            raise IllegalActionError(NoSpellChangeInBattle())
        character = next((c for c in self.party if c.name == name), None)
        if character is None:
            names = ", ".join(c.name for c in self.party)
            raise IllegalActionError(NoSuchCharacter(repr(name), names))
        if character.status is Status.DEAD:
            raise IllegalActionError(CharacterDead(name))
        changed = character.with_spells(spells)
        self.party = [changed if c.name == name else c for c in self.party]
        self._log("CHARACTER", master_data(changed, self.locale))
        self._changed("change_spells")
        return changed

    @retry_on(CombatError)
    def _rest(self, args: Rest) -> ToolOutput:
        return ToolOutput(text=self.rest())

    @retry_on(CombatError)
    def _change_spells(self, args: ChangeSpells) -> ToolOutput:
        changed = self.change_spells(args.character, args.spells)
        data = {"character": changed.model_dump(mode="json")}
        return ToolOutput(text=f"changed:\n{master_data(changed, self.locale)}", data=data)

    @retry_on(CombatError)
    def _fight_it_out(self, args: FightItOutTool) -> ToolOutput:
        return self._apply(FightItOut(), "fight_it_out")

    @retry_on(CombatError)
    def _heal_out(self, args: HealOutOfCombat) -> ToolOutput:
        result = cast_out_of_combat(
            self.party, args.caster, args.spell, self.source, target=args.target, options=self.options
        )
        self.party = list(result.party)
        text = "\n".join(engine_line(line, self.locale) for line in result.text.split("\n"))
        self._log("SPELL", text)
        self._changed("cast_out_of_combat")
        return ToolOutput(text=text)
