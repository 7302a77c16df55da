"""The combat round as a state machine: SETUP → ROLL → JUDGE → NARRATIVE → … → ENDED.

A :class:`Battle` holds a :class:`~gm_engine.combat.state.BattleState` and a
:class:`~gm_engine.dice.source.DiceSource`. :meth:`Battle.apply` takes one action;
it either succeeds and returns a :class:`StepResult` (the log to show at the new
pause), or raises :class:`~gm_engine.combat.errors.OutOfOrderError` /
:class:`~gm_engine.combat.errors.IllegalActionError` and leaves the battle and the
source exactly as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from gm_engine.combat import render
from gm_engine.combat.actions import (
    ACTION_PHASES,
    Action,
    CastSpell,
    EndBattle,
    FightItOut,
    Judge,
    Narrate,
    NextRound,
    ResolveByNarrative,
    RollDice,
    SetSituationalBonus,
    TargetCharacter,
    TargetEnemy,
    parse_action,
)
from gm_engine.combat.characters import (
    Character,
    LastingCost,
    Status,
    describe_validation_error,
    validate_party,
)
from gm_engine.combat.enemies import (
    AbilityKind,
    Encounter,
    Enemy,
    EnemyKind,
    expected_party_ap,
    expected_side_ap,
)
from gm_engine.combat.errors import CombatError, IllegalActionError, InvalidCharacterError, OutOfOrderError
from gm_engine.combat.lines import written
from gm_engine.combat.options import DEFAULT_OPTIONS, CombatOptions
from gm_engine.combat.ranks import Rank, stats
from gm_engine.combat.spells import CAST_WINDOWS, OUT_OF_COMBAT, HealingWaveMode, Spell
from gm_engine.combat.state import (
    BattleState,
    CastRecord,
    DamageLine,
    DieGroup,
    HealLine,
    JudgeRecord,
    LifeCheck,
    NarrativeResolution,
    Outcome,
    PendingCollapse,
    Phase,
    RoundRecord,
    Term,
    state_hash,
)
from gm_engine.combat.terms import (
    casts_of,
    collapses_now,
    enemy_dice_plan,
    enemy_terms,
    participants,
    pc_terms,
)
from gm_engine.combat.terms import live_dice as _live
from gm_engine.combat.terms import sanctuary_casters as _sanctuary_casters
from gm_engine.combat.terms import slow_casts as _slow_casts
from gm_engine.combat.terms import standing_enemies as _standing_enemies
from gm_engine.dice.result import Locale
from gm_engine.dice.source import DiceError, DiceSource, SeededSource
from gm_engine.messages import DEFAULT_LOCALE, texts
from gm_engine.messages.catalogue import Message
from gm_engine.messages.catalogue import render as render_message
from gm_engine.messages.texts import (
    AlreadyPlayedOut,
    AmountOnlyLimitBreak,
    BattleOver,
    BonusOutOfRange,
    CannotCastDown,
    CastAtWrongPause,
    CouldNotCarryOut,
    DecidedTakeEnd,
    DownAddsNoAp,
    EnemyFallen,
    ExpectEnd,
    ExpectJudge,
    ExpectNextRound,
    ExpectNothing,
    ExpectRoll,
    ExpectSetup,
    FightRequested,
    FightWishRecorded,
    ForesightNoCheck,
    ForesightRevived,
    HealDead,
    HealingWaveNeedsMode,
    HealingWaveNoTarget,
    LimitBreakAmount,
    LimitBreakNeedsAmount,
    MaxHpCannotPay,
    NarrativeTooLate,
    NobodyStanding,
    NoEffectOutside,
    NoEnemyStanding,
    NoRollToReroll,
    NoSlotsPaidAlready,
    NoSpellsKnown,
    NoSuchEnemy,
    NoSuchPc,
    NotABattle,
    NotOverwhelming,
    NotOverwhelmingExample,
    PcAndEnemyShareName,
    PcDown,
    ReviveNoCheckLeft,
    ReviveNotThisScene,
    ReviveWarded,
    SanctuaryAddsNoAp,
    SanctuaryAlready,
    SanctuaryCasterAddsAp,
    SanctuaryNoApSpell,
    SlowDoesNothing,
    SpellNeedsTarget,
    SpellNotKnown,
    SpellTakesNoMode,
    SpellTakesNoTarget,
    UndecidedTakeNextRound,
    UnknownSpellName,
    WrongPause,
)

Label = Literal["BATTLE_SETUP", "ROLL_LOG", "BATTLE_JUDGE", "NARRATIVE", "BATTLE_END"]


class StepResult(BaseModel):
    """What an accepted action produced: the pause reached and the text to show there.

    ``label`` is the log's name, ``text`` the log as the player sees it, ``events``
    short lines about what the action itself did (a slot spent, a target named).
    """

    model_config = ConfigDict(frozen=True)

    phase: Phase
    round: int
    label: Label
    text: str
    events: tuple[str, ...] = ()


_LABELS: dict[Phase, Label] = {
    Phase.SETUP: "BATTLE_SETUP",
    Phase.ROLL: "ROLL_LOG",
    Phase.JUDGE: "BATTLE_JUDGE",
    Phase.NARRATIVE: "NARRATIVE",
    Phase.ENDED: "BATTLE_END",
}


class Battle:
    """One fight between a party and an encounter, driven one action at a time.

    Build one with :meth:`start` (or :meth:`from_json` for a saved one). Read
    :attr:`phase`, :meth:`legal_actions`, :meth:`current_log`; change it only with
    :meth:`apply`.
    """

    def __init__(self, state: BattleState, source: DiceSource) -> None:
        self._state = state
        self._source = source

    # -- construction -----------------------------------------------------------------

    @classmethod
    def start(
        cls,
        party: Sequence[Character],
        encounter: Encounter,
        *,
        source: DiceSource | None = None,
        seed: int | str | None = None,
        options: CombatOptions = DEFAULT_OPTIONS,
    ) -> Battle:
        """Start a battle at the SETUP pause of round 1.

        Dice come from ``source`` (default ``SeededSource(seed)``). Dead or down
        characters may be in the party; they take no part.

        Raises:
            InvalidCharacterError: the party or encounter breaks a rule (§3.2 composition
                when ``options.enforce_composition``), or nobody can fight.
        """
        members = validate_party(party)
        if options.enforce_composition:
            encounter.check_composition()
        if not any(c.standing for c in members):
            raise InvalidCharacterError(NobodyStanding())
        enemies = list(encounter.adjusted_enemies())
        if not any(e.standing for e in enemies):
            raise InvalidCharacterError(NoEnemyStanding())
        pc_names = {c.name for c in members}
        clash = sorted(pc_names & {e.name for e in enemies})
        if clash:
            raise InvalidCharacterError(PcAndEnemyShareName(", ".join(clash)))
        dice = source if source is not None else SeededSource(seed)
        state = BattleState(
            options=options,
            party=list(members),
            enemies=enemies,
            difficulty=encounter.difficulty,
            seed=seed if source is None else source.seed,
        )
        state.rounds.append(RoundRecord(number=1))
        return cls(state, dice)

    @classmethod
    def from_state(cls, state: BattleState, source: DiceSource) -> Battle:
        """A battle from a saved state; ``source`` must be positioned where it left off."""
        return cls(state.model_copy(deep=True), source)

    @classmethod
    def from_json(cls, text: str, source: DiceSource) -> Battle:
        """A battle from :meth:`to_json`'s text.

        Raises:
            CombatError: the text is not a valid battle state (the message says what is wrong).
        """
        try:
            state = BattleState.model_validate_json(text)
        except ValidationError as exc:
            raise CombatError(NotABattle(describe_validation_error(exc, BattleState))) from None
        return cls(state, source)

    # -- reading ----------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The pause the battle waits at."""
        return self._state.phase

    @property
    def round_number(self) -> int:
        """The round in progress (1-based)."""
        return self._state.round

    @property
    def party(self) -> tuple[Character, ...]:
        """The PCs as they are now."""
        return tuple(self._state.party)

    @property
    def enemies(self) -> tuple[Enemy, ...]:
        """The enemies as they are now."""
        return tuple(self._state.enemies)

    @property
    def options(self) -> CombatOptions:
        """The rule options of this battle."""
        return self._state.options

    @property
    def source(self) -> DiceSource:
        """The source every die of this battle comes from."""
        return self._source

    @property
    def outcome(self) -> Outcome | None:
        """How the battle ended or is decided (set at the JUDGE that decides it), else None."""
        return self._state.outcome

    @property
    def is_over(self) -> bool:
        """The battle has reached ENDED; no action is accepted any more."""
        return self._state.phase is Phase.ENDED

    @property
    def state(self) -> BattleState:
        """A deep copy of the whole state (changing it does not change the battle)."""
        return self._state.model_copy(deep=True)

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON of the state: same seed + same actions, same hash."""
        return state_hash(self._state)

    def to_json(self) -> str:
        """The state as JSON (load with :meth:`from_json`)."""
        return self._state.model_dump_json(indent=1)

    def current_log(self) -> StepResult:
        """The log of the pause the battle is at, as the player should see it now."""
        return self._result(())

    def log_text(self, locale: Locale = DEFAULT_LOCALE) -> str:
        """The text of :meth:`current_log` in ``locale`` (the rules' terms as they are)."""
        return render.phase_log(self._state, locale)

    def side_ap(self) -> tuple[int, int]:
        """The PC side's and the enemy side's AP as they stand now: without dice at SETUP,
        the final AP (before heals and damage) once rolled."""
        return sum(t.value for t in pc_terms(self._state)), sum(t.value for t in enemy_terms(self._state))

    def hint(self) -> str:
        """One line for a prompt: the pause, and what may be done there."""
        state = self._state
        expected = render_message(_expected(state), "en")
        return f"round {state.round}, {state.phase.value}: {expected}"

    def character(self, name: str) -> Character:
        """The PC called ``name``.

        Raises:
            IllegalActionError: no such PC.
        """
        return _find_pc(self._state, name)

    def legal_actions(self) -> list[Action]:
        """Every action :meth:`apply` would accept now (bonus values and 限界突破 amounts enumerated)."""
        return [a for a in _candidates(self._state) if _explain_illegal(self._state, a) is None]

    def is_legal(self, action: Action | dict[str, Any]) -> bool:
        """Whether :meth:`apply` would accept ``action`` now."""
        try:
            self.check(action)
        except CombatError:
            return False
        return True

    def check(self, action: Action | dict[str, Any] | str) -> Action:
        """Validate ``action`` without applying it; returns the parsed action.

        Raises:
            OutOfOrderError: the action belongs at another pause.
            IllegalActionError: it breaks a rule, or is not a well-formed action.
        """
        parsed = parse_action(action)
        problem = _explain_illegal(self._state, parsed)
        if problem is not None:
            raise problem
        return parsed

    # -- changing ---------------------------------------------------------------------

    def apply(self, action: Action | dict[str, Any] | str) -> StepResult:
        """Take one action; on any error the battle and the dice source are unchanged.

        Raises:
            OutOfOrderError: the action belongs at another pause (the message says which).
            IllegalActionError: it breaks a rule (the message names the clause).
        """
        parsed = self.check(action)
        work = _working_copy(self._state)
        mark = self._source.mark()
        try:
            events = _execute(work, parsed, self._source)
            work.actions.append(parsed)
            _check_invariants(work)
        except (CombatError, DiceError, ValidationError) as exc:
            self._source.restore(mark)
            if isinstance(exc, CombatError):
                raise
            raise IllegalActionError(CouldNotCarryOut(str(exc))) from None
        except BaseException:
            self._source.restore(mark)
            raise
        self._state = work
        return self._result(tuple(events))

    def _result(self, events: tuple[str, ...]) -> StepResult:
        state = self._state
        return StepResult(
            phase=state.phase,
            round=state.round,
            label=_LABELS[state.phase],
            text=render.phase_log(state),
            events=events,
        )


def _working_copy(state: BattleState) -> BattleState:
    """A copy that an action may change without touching ``state``.

    Only the current round is ever changed in place (records of past rounds are final)
    and everything else is a list of frozen values, so copying those lists and the
    current round is enough; a deep copy of the whole history would make a long battle
    quadratic.
    """
    work = state.model_copy()
    work.party = list(state.party)
    work.enemies = list(state.enemies)
    work.rounds = [*state.rounds[:-1], state.rounds[-1].model_copy(deep=True)]
    work.pending_collapses = list(state.pending_collapses)
    work.revive_wards = list(state.revive_wards)
    work.died_in_battle = list(state.died_in_battle)
    work.casts = list(state.casts)
    work.actions = list(state.actions)
    return work


def _check_invariants(state: BattleState) -> None:
    """Validate what an action can have changed: every PC and enemy, and the current round.

    Raises:
        ValidationError: a value breaks a model's rules (the action is then refused).
    """
    for character in state.party:
        Character.model_validate(character.model_dump())
    for enemy in state.enemies:
        Enemy.model_validate(enemy.model_dump())
    RoundRecord.model_validate(state.current.model_dump())


# -- lookups -------------------------------------------------------------------------------


def _find_pc(state: BattleState, name: str) -> Character:
    for c in state.party:
        if c.name == name:
            return c
    raise IllegalActionError(NoSuchPc(repr(name), ", ".join(c.name for c in state.party)))


def _find_enemy(state: BattleState, name: str) -> Enemy:
    for e in state.enemies:
        if e.name == name:
            return e
    raise IllegalActionError(NoSuchEnemy(repr(name), ", ".join(e.name for e in state.enemies)))


def _replace_pc(state: BattleState, new: Character) -> None:
    state.party = [new if c.name == new.name else c for c in state.party]


def _replace_enemy(state: BattleState, new: Enemy) -> None:
    state.enemies = [new if e.name == new.name else e for e in state.enemies]


# -- validation ------------------------------------------------------------------------------


def _explain_illegal(state: BattleState, action: Action) -> CombatError | None:
    """The error ``action`` would raise now, or None when it is legal."""
    phase = state.phase.value
    if state.phase is Phase.ENDED:
        return OutOfOrderError(BattleOver(), phase)
    allowed = ACTION_PHASES[action.kind]
    if phase not in allowed:
        return OutOfOrderError(
            WrongPause(repr(action.kind), "/".join(sorted(allowed)), phase, state.round, _expected(state)),
            phase,
        )
    try:
        if isinstance(action, SetSituationalBonus):
            pc = _find_pc(state, action.character)
            if not pc.standing:
                return IllegalActionError(DownAddsNoAp(pc.name, pc.status.value))
            if pc.name in _sanctuary_casters(state) and action.bonus:
                return IllegalActionError(SanctuaryAddsNoAp(pc.name), "§6.2.2 聖域")
            cap = pc.situational_cap
            low = -cap if state.options.allow_negative_situational else 0
            if not low <= action.bonus <= cap:
                return IllegalActionError(
                    BonusOutOfRange(pc.name, f"{low:+d}", f"{cap:+d}", pc.rank.value, f"{action.bonus:+d}"),
                    "§9.1, §14.1 状況補正上限",
                )
        elif isinstance(action, TargetEnemy):
            enemy = _find_enemy(state, action.enemy)
            if not enemy.standing:
                return IllegalActionError(EnemyFallen(enemy.name))
        elif isinstance(action, TargetCharacter):
            pc = _find_pc(state, action.character)
            if not pc.standing:
                return IllegalActionError(PcDown(pc.name, pc.status.value))
        elif isinstance(action, CastSpell):
            return _explain_cast(state, action)
        elif isinstance(action, NextRound):
            if state.outcome is not None:
                return OutOfOrderError(DecidedTakeEnd(phase, state.outcome.value), phase)
        elif isinstance(action, EndBattle):
            if state.outcome is None:
                return OutOfOrderError(UndecidedTakeNextRound(phase), phase)
        elif isinstance(action, ResolveByNarrative):
            return _explain_narrative(state)
        elif isinstance(action, FightItOut):
            if state.round != 1 or state.current.dice or state.casts:
                return IllegalActionError(AlreadyPlayedOut(), "§0 ナラティブ優先の原則")
            if state.fight_requested:
                return IllegalActionError(FightWishRecorded())
    except CombatError as exc:
        return exc
    return None


def _expected(state: BattleState) -> Message:
    if state.phase is Phase.NARRATIVE:
        return ExpectEnd() if state.outcome is not None else ExpectNextRound()
    return {
        Phase.SETUP: ExpectSetup,
        Phase.ROLL: ExpectRoll,
        Phase.JUDGE: ExpectJudge,
        Phase.ENDED: ExpectNothing,
    }[state.phase]()


def _explain_narrative(state: BattleState) -> CombatError | None:
    rule = "§0 ナラティブ優先の原則"
    if state.round != 1 or state.current.dice or state.casts:
        return IllegalActionError(NarrativeTooLate(), rule)
    if state.fight_requested:
        return IllegalActionError(FightRequested(), rule)
    ratio = state.options.narrative_priority_ratio
    if ratio is None:
        return None
    if state.options.narrative_priority_test == "rules_example" and _rules_example(state):
        return None
    pc_ap = expected_party_ap(state.party)
    enemy_ap = _expected_enemy_ap(state)
    if pc_ap < ratio * enemy_ap:
        example = state.options.narrative_priority_test == "rules_example"
        weaker = NotOverwhelmingExample if example else NotOverwhelming
        return IllegalActionError(weaker(f"{pc_ap:.1f}", f"{enemy_ap:.1f}", f"{ratio:g}"), rule)
    return None


#: §0's example of an overwhelming difference: PCs of these ranks ...
_OVERWHELMING_RANKS = frozenset({Rank.VETERAN, Rank.HERO})
#: ... against no more than this many 雑魚 (「少数の雑魚」) and nothing else.
_FEW_MOBS = 3


def _rules_example(state: BattleState) -> bool:
    """§0's own example: a standing PC of 熟練 or 英雄, and the enemies are a few 雑魚 only."""
    standing = _standing_enemies(state)
    strong = any(c.standing and c.rank in _OVERWHELMING_RANKS for c in state.party)
    few_mobs = len(standing) <= _FEW_MOBS and all(e.kind is EnemyKind.MOB for e in standing)
    return strong and few_mobs


def _expected_enemy_ap(state: BattleState) -> float:
    # the state's enemies already carry §3.3's HP adjustments, so no Encounter is rebuilt from them
    return expected_side_ap(state.enemies, state.difficulty, state.options)


def _explain_cast(state: BattleState, action: CastSpell) -> CombatError | None:
    spell = action.spell
    phase = state.phase.value
    windows = CAST_WINDOWS[spell]
    if phase not in windows:
        return OutOfOrderError(CastAtWrongPause(spell.label, "/".join(sorted(windows)), phase), phase)
    caster = _find_pc(state, action.caster)
    if not caster.standing:
        return IllegalActionError(CannotCastDown(caster.name, caster.status.value))
    if spell not in caster.spells:
        known = ", ".join(s.value for s in caster.spells)
        return IllegalActionError(SpellNotKnown(caster.name, spell.label, known or NoSpellsKnown()), "§5.1")
    if caster.slots_left == 0:
        options = state.options
        if len(caster.lasting_costs) >= options.overcasts_per_character:
            return IllegalActionError(
                NoSlotsPaidAlready(caster.name, len(caster.lasting_costs), options.overcasts_per_character),
                "§5.2",
            )
        if caster.max_hp - options.overcast_max_hp_cost < 1:
            return IllegalActionError(MaxHpCannotPay(caster.name), "§5.2")
    needs_target = spell in (Spell.MANA_SHIELD, Spell.HEAL, Spell.REVIVE) or (
        spell is Spell.HEALING_WAVE and action.mode is HealingWaveMode.ENDURE
    )
    if needs_target and action.target is None:
        return IllegalActionError(SpellNeedsTarget(spell.label))
    if not needs_target and action.target is not None:
        return IllegalActionError(SpellTakesNoTarget(spell.label))
    if (spell is Spell.LIMIT_BREAK) != (action.amount is not None):
        return IllegalActionError(
            AmountOnlyLimitBreak() if spell is not Spell.LIMIT_BREAK else LimitBreakNeedsAmount()
        )
    if (spell is Spell.HEALING_WAVE) != (action.mode is not None):
        return IllegalActionError(
            HealingWaveNeedsMode() if spell is Spell.HEALING_WAVE else SpellTakesNoMode(spell.label)
        )
    if spell is Spell.LIMIT_BREAK:
        assert action.amount is not None
        hp_left = caster.hp - action.amount
        if caster.slots_left == 0:
            hp_left = min(caster.hp, caster.max_hp - state.options.overcast_max_hp_cost) - action.amount
        if action.amount < 1 or hp_left < 1:
            return IllegalActionError(
                LimitBreakAmount(caster.hp - 1, caster.name, action.amount),
                "§6.2.3",
            )
    if spell is Spell.SLOW:
        problem = _explain_slow(state)
        if problem is not None:
            return problem
    if spell is Spell.SANCTUARY and caster.name in _sanctuary_casters(state):
        return IllegalActionError(SanctuaryAlready(caster.name))
    ap_spells = (Spell.FIREBALL, Spell.LIGHTNING, Spell.LIMIT_BREAK)
    if spell in ap_spells and caster.name in _sanctuary_casters(state):
        return IllegalActionError(SanctuaryNoApSpell(caster.name, spell.label), "§6.2.2 聖域")
    if spell is Spell.SANCTUARY:
        own = [c.spell.label for c in state.current.declarations.casts
               if c.caster == caster.name and c.spell in ap_spells]
        own += ["【崩壊】" for p in collapses_now(state) if p.caster == caster.name]
        if own:
            return IllegalActionError(
                SanctuaryCasterAddsAp(caster.name, "、".join(own)),
                "§6.2.2 聖域",
            )
    if action.target is not None:
        target = _find_pc(state, action.target)
        if spell is Spell.REVIVE:
            if target.status is Status.DEAD and target.name not in state.died_in_battle:
                return IllegalActionError(ReviveNotThisScene(target.name), "§6.2.4")
            if target.status is not Status.DEAD and target.name in state.revive_wards:
                return IllegalActionError(ReviveWarded(target.name))
            if target.status is not Status.DEAD and phase in ("JUDGE", "NARRATIVE"):
                return IllegalActionError(ReviveNoCheckLeft(target.name), "§6.2.4")
        elif spell is Spell.HEAL:
            if target.status is Status.DEAD:
                return IllegalActionError(HealDead(target.name), "§6.2.4")
        elif not target.standing:
            return IllegalActionError(PcDown(target.name, target.status.value))
    if spell is Spell.FORESIGHT and phase == "ROLL" and not _live(state, "pc") and not _live(state, "enemy"):
        return IllegalActionError(NoRollToReroll(), "§4.5")
    if spell is Spell.FORESIGHT and phase == "JUDGE" and _last_check(state) is None:
        live = [g for g in state.current.dice if not g.discarded]
        if live and live[-1].purpose == "生死判定" and _revived_at_judge(state, live[-1].owner):
            return IllegalActionError(
                ForesightRevived(live[-1].owner),
                "§4.5, §6.2.4",
            )
        return IllegalActionError(ForesightNoCheck(), "§4.5")
    return None


def _explain_slow(state: BattleState) -> CombatError | None:
    """A 【鈍足】 that would do nothing is refused rather than spending a slot for nothing.

    Against enemies with dice each cast takes one die (``one_die_fewer``) or one point of
    their dice total (``minus_one``, which a side rolling k dice can always lose k times),
    so a side with k dice takes at most k casts; against diceless enemies each cast is
    −``slow_no_dice_penalty`` and always does something.
    """
    standing = _standing_enemies(state)
    dice = sum(e.dice for e in standing)
    if dice and _slow_casts(state) >= dice:
        return IllegalActionError(
            SlowDoesNothing(dice),
            "§6.2.2 鈍足",
        )
    return None


def _last_check(state: BattleState) -> DieGroup | None:
    """The round's last live die group if it is a life-or-death check that is still open.

    A check whose failure 【蘇生】 has overturned at this JUDGE is settled: §6.2.4 makes it
    an automatic success, so there is nothing left for 【予見】 to roll again.
    """
    live = [g for g in state.current.dice if not g.discarded]
    if live and live[-1].phase == "JUDGE" and live[-1].purpose == "生死判定":
        if _revived_at_judge(state, live[-1].owner):
            return None
        return live[-1]
    return None


def _revived_at_judge(state: BattleState, name: str) -> bool:
    return any(
        c.spell is Spell.REVIVE and c.target == name and c.phase in ("JUDGE", "NARRATIVE")
        for c in state.current.declarations.casts
    )


# -- candidates for legal_actions ------------------------------------------------------------------


def _candidates(state: BattleState) -> list[Action]:
    out: list[Action] = []
    if state.phase is Phase.ENDED:
        return out
    phase = state.phase
    standing = [c for c in state.party if c.standing]
    if phase is Phase.SETUP:
        out.append(RollDice())
        out.append(ResolveByNarrative())
        out.append(FightItOut())
        for c in standing:
            out.extend(SetSituationalBonus(character=c.name, bonus=b)
                       for b in range(-c.situational_cap, c.situational_cap + 1))
    if phase in (Phase.SETUP, Phase.ROLL):
        out.extend(TargetEnemy(enemy=e.name) for e in _standing_enemies(state))
        out.extend(TargetCharacter(character=c.name) for c in standing)
    if phase is Phase.ROLL:
        out.append(Judge())
    if phase is Phase.JUDGE:
        out.append(Narrate())
    if phase is Phase.NARRATIVE:
        out.extend([NextRound(), EndBattle()])
    for caster in standing:
        for spell in caster.spells:
            if spell in (Spell.MANA_SHIELD, Spell.HEAL, Spell.REVIVE):
                out.extend(CastSpell(caster=caster.name, spell=spell, target=t.name) for t in state.party)
            elif spell is Spell.HEALING_WAVE:
                out.append(CastSpell(caster=caster.name, spell=spell, mode=HealingWaveMode.HALVE))
                out.extend(
                    CastSpell(caster=caster.name, spell=spell, mode=HealingWaveMode.ENDURE, target=t.name)
                    for t in standing
                )
            elif spell is Spell.LIMIT_BREAK:
                out.extend(CastSpell(caster=caster.name, spell=spell, amount=n) for n in range(1, caster.hp))
            else:
                out.append(CastSpell(caster=caster.name, spell=spell))
    return out


# -- execution -------------------------------------------------------------------------------------


def _execute(state: BattleState, action: Action, source: DiceSource) -> list[str]:
    decl = state.current.declarations
    if isinstance(action, SetSituationalBonus):
        decl.situational[action.character] = action.bonus
        if action.reason:
            decl.situational_reasons[action.character] = action.reason
        else:
            decl.situational_reasons.pop(action.character, None)
        return [written(texts.EngineSituational(action.character, f"{action.bonus:+d}"))]
    if isinstance(action, TargetEnemy):
        decl.enemy_target = action.enemy
        return [written(texts.EngineTarget(action.enemy))]
    if isinstance(action, TargetCharacter):
        decl.pc_target = action.character
        return [written(texts.EngineEnemyTarget(action.character))]
    if isinstance(action, CastSpell):
        return _cast(state, action, source)
    if isinstance(action, RollDice):
        _roll(state, source)
        state.phase = Phase.ROLL
        return [written(texts.EngineRolled())]
    if isinstance(action, Judge):
        _judge(state, source)
        state.phase = Phase.JUDGE
        return [written(texts.EngineJudged())]
    if isinstance(action, Narrate):
        state.phase = Phase.NARRATIVE
        return []
    if isinstance(action, NextRound):
        _begin_round(state, state.round + 1)
        return [written(texts.EngineRoundBegins(state.round))]
    if isinstance(action, EndBattle):
        state.phase = Phase.ENDED
        state.pending_collapses = []
        state.revive_wards = []
        return [written(texts.EngineBattleEnded(state.outcome.value if state.outcome else ""))]
    if isinstance(action, FightItOut):
        state.fight_requested = True
        return [written(texts.EngineFightRequested())]
    assert isinstance(action, ResolveByNarrative)
    state.narrative_resolution = NarrativeResolution(
        reason=action.reason,
        pc_expected_ap=expected_party_ap(state.party),
        enemy_expected_ap=_expected_enemy_ap(state),
    )
    state.outcome = Outcome.NARRATIVE_VICTORY
    state.phase = Phase.ENDED
    return [written(texts.EngineNarrativeResolved())]


def _begin_round(state: BattleState, number: int) -> None:
    state.round = number
    state.phase = Phase.SETUP
    record = RoundRecord(number=number)
    for enemy in state.enemies:
        regen = enemy.total(AbilityKind.REGENERATION)
        if regen and enemy.standing and enemy.hp < enemy.max_hp:
            healed = min(enemy.max_hp, enemy.hp + regen)
            record.setup_events.append(written(texts.EngineRegeneration(enemy.name, regen, enemy.hp, healed)))
            _replace_enemy(state, enemy.model_copy(update={"hp": healed}))
    state.rounds.append(record)


def _pay_for_cast(state: BattleState, caster: Character, spell: Spell) -> tuple[Character, bool, list[str]]:
    """Spend a slot, or the lasting cost when none is left (§5.2)."""
    if caster.slots_left > 0:
        paid = caster.evolve(slots_left=caster.slots_left - 1)
        spent = texts.EngineSlotSpent(caster.name, caster.slots_left, paid.slots_left)
        return paid, False, [written(spent)]
    cost = state.options.overcast_max_hp_cost
    costs = (*caster.lasting_costs, LastingCost(spell=spell, max_hp_loss=cost))
    new_max = stats(caster.rank).max_hp - sum(c.max_hp_loss for c in costs)
    paid = caster.evolve(lasting_costs=costs, hp=min(caster.hp, new_max))
    line = written(texts.EngineOvercast(caster.name, cost, caster.max_hp, paid.max_hp))
    return paid, True, [line]


def _cast(state: BattleState, action: CastSpell, source: DiceSource) -> list[str]:
    caster = _find_pc(state, action.caster)
    paid, overcast, events = _pay_for_cast(state, caster, action.spell)
    spell = action.spell
    if spell is Spell.LIMIT_BREAK:
        assert action.amount is not None
        paid = paid.evolve(hp=paid.hp - action.amount)
        events.append(written(texts.EngineLimitBreak(caster.name, action.amount, paid.hp)))
    _replace_pc(state, paid)
    record = CastRecord(
        round=state.round,
        phase=state.phase.value,
        caster=caster.name,
        spell=spell,
        target=action.target,
        amount=action.amount,
        mode=action.mode,
        overcast=overcast,
        slots_after=paid.slots_left,
    )
    state.casts.append(record)
    state.current.declarations.casts.append(record)
    declared = (
        texts.EngineCastAt(caster.name, spell.label, action.target)
        if action.target
        else texts.EngineCast(caster.name, spell.label)
    )
    events.insert(0, written(declared))
    if spell is Spell.SANCTUARY and state.current.declarations.situational.pop(caster.name, 0):
        state.current.declarations.situational_reasons.pop(caster.name, None)
        events.append(written(texts.EngineSanctuaryDropsBonus(caster.name)))
    if spell is Spell.COLLAPSE:
        state.pending_collapses.append(
            PendingCollapse(caster=caster.name, cast_in=state.round, resolves_in=state.round + 1)
        )
        events.append(written(texts.EngineCollapseChannelled(state.round + 1)))
    elif spell is Spell.FORESIGHT and state.phase is Phase.JUDGE:
        events.append(_reroll_check(state, source))
    elif spell is Spell.FORESIGHT:
        _reroll(state, source)
        events.append(written(texts.EngineForesightRerolled()))
    elif spell is Spell.REVIVE:
        assert action.target is not None
        target = _find_pc(state, action.target)
        if target.status is Status.DEAD:
            _replace_pc(state, target.evolve(status=Status.DOWN, hp=0))
            state.died_in_battle.remove(target.name)
            events.append(written(texts.EngineReviveOverturns(target.name)))
            overturned = texts.EngineReviveOverturned(caster.name, target.name)
            state.current.after_judge.append(written(overturned))
        else:
            state.revive_wards.append(target.name)
            events.append(written(texts.EngineReviveWard(target.name)))
    return events


def _reroll_check(state: BattleState, source: DiceSource) -> str:
    """【予見】 at JUDGE (§4.5): the last life-or-death check is discarded and rolled again."""
    record = state.current
    old = _last_check(state)
    assert old is not None and record.judge is not None
    record.dice = [g.model_copy(update={"discarded": True}) if g is old else g for g in record.dice]
    new = _roll_group(source, "pc", old.owner, "生死判定", len(old.values), "JUDGE")
    record.dice.append(new)
    record.rerolls += 1
    target = state.options.life_check_target
    survived = new.total >= target
    character = _find_pc(state, old.owner)
    _replace_pc(state, character.evolve(hp=0, status=Status.DOWN if survived else Status.DEAD))
    if survived and character.name in state.died_in_battle:
        state.died_in_battle.remove(character.name)
    if not survived and character.name not in state.died_in_battle:
        state.died_in_battle.append(character.name)
    checks = tuple(
        c.model_copy(update={"rolled": new.values, "result": "down" if survived else "dead"})
        if c.character == old.owner and c.rolled == old.values and not c.by
        else c
        for c in record.judge.checks
    )
    record.judge = record.judge.model_copy(update={"checks": checks})
    rerolled = texts.EngineCheckRerollSurvived if survived else texts.EngineCheckRerollDied
    line = written(rerolled(old.owner, str(list(old.values)), str(list(new.values)), new.total))
    record.after_judge.append(line)
    return line


def _roll_group(
    source: DiceSource, side: Literal["pc", "enemy"], owner: str, purpose: str, count: int,
    phase: Literal["ROLL", "JUDGE"] = "ROLL",
) -> DieGroup:
    values = tuple(source.roll_many(count, 6))
    return DieGroup(side=side, owner=owner, purpose=purpose, phase=phase, values=values)


def _roll(state: BattleState, source: DiceSource) -> None:
    record = state.current
    record.dice.extend(_pc_groups(state, source))
    record.dice.extend(_enemy_groups(state, source))


def _pc_groups(state: BattleState, source: DiceSource) -> list[DieGroup]:
    groups = [_roll_group(source, "pc", c.name, "AP", c.ap_dice) for c in participants(state)]
    groups.extend(_roll_group(source, "pc", c.caster, "火弾", 1) for c in casts_of(state, Spell.FIREBALL))
    for pending in collapses_now(state):
        caster = next((c for c in state.party if c.name == pending.caster), None)
        if state.options.collapse_needs_standing_caster and (caster is None or not caster.standing):
            continue
        groups.append(_roll_group(source, "pc", pending.caster, "崩壊", 1))
    return groups


def _enemy_groups(state: BattleState, source: DiceSource) -> list[DieGroup]:
    return [_roll_group(source, "enemy", e.name, "AP", n) for e, n in enemy_dice_plan(state) if n > 0]


def _reroll(state: BattleState, source: DiceSource) -> None:
    """【予見】 (§4.5): discard the live ROLL dice and roll the same dice again."""
    record = state.current
    sides = ("pc", "enemy") if state.options.foresight_rerolls == "both_sides" else ("pc",)
    live = [g for g in record.dice if g.phase == "ROLL" and not g.discarded and g.side in sides]
    record.dice = [g.model_copy(update={"discarded": True}) if g in live else g for g in record.dice]
    record.dice.extend(_roll_group(source, g.side, g.owner, g.purpose, len(g.values)) for g in live)
    record.rerolls += 1


def _judge(state: BattleState, source: DiceSource) -> None:
    record = state.current
    decl = record.declarations
    p_terms, e_terms = pc_terms(state), enemy_terms(state)
    pc_ap, enemy_ap = sum(t.value for t in p_terms), sum(t.value for t in e_terms)
    winner: Literal["pc", "enemy", "tie"] = (
        "pc" if pc_ap > enemy_ap else "enemy" if pc_ap < enemy_ap else "tie"
    )
    notes: list[str] = []
    for pending in collapses_now(state):
        if not any(g.owner == pending.caster for g in _live(state, "pc", "崩壊")):
            notes.append(written(texts.EngineCollapseFizzled(pending.caster)))
    state.pending_collapses = [p for p in state.pending_collapses if p.resolves_in > state.round]

    # 【治癒】 resolves after the comparison and before damage (§6.2.4).
    heals: list[HealLine] = []
    for cast in casts_of(state, Spell.HEAL):
        assert cast.target is not None
        target = _find_pc(state, cast.target)
        if target.status is Status.DEAD:
            notes.append(written(texts.EngineHealOnDead(cast.caster, target.name)))
            continue
        count = stats(target.rank).heal_dice
        group = _roll_group(source, "pc", cast.caster, f"治癒→{target.name}", count, "JUDGE")
        record.dice.append(group)
        new_hp = min(target.max_hp, target.hp + group.total)
        healed = target.evolve(hp=new_hp, status=Status.OK if new_hp > 0 else target.status)
        _replace_pc(state, healed)
        heals.append(HealLine(caster=cast.caster, spell=Spell.HEAL, target=target.name, rolled=group.values,
                              healed=new_hp - target.hp, hp_before=target.hp, hp_after=new_hp))

    damage: list[DamageLine] = []
    checks: list[LifeCheck] = []
    if winner == "pc":
        damage.extend(_damage_enemies(state, pc_ap - enemy_ap, decl.enemy_target))
    elif winner == "enemy":
        standing_pcs = [c for c in state.party if c.standing]
        if standing_pcs:
            target = next((c for c in standing_pcs if c.name == decl.pc_target), standing_pcs[0])
            line, check = _damage_pc(state, target, enemy_ap - pc_ap, source)
            damage.append(line)
            if check is not None:
                checks.append(check)
    record.judge = JudgeRecord(
        pc_terms=tuple(p_terms), enemy_terms=tuple(e_terms), pc_ap=pc_ap, enemy_ap=enemy_ap, winner=winner,
        heals=tuple(heals), damage=tuple(damage), checks=tuple(checks), notes=tuple(notes),
    )
    if not _standing_enemies(state):
        state.outcome = Outcome.PC_VICTORY
    elif not any(c.standing for c in state.party):
        state.outcome = Outcome.ENEMY_VICTORY


def _damage_enemies(state: BattleState, diff: int, named: str | None) -> list[DamageLine]:
    """The PC side's win: ``diff`` goes to the named enemy (default the first standing).

    With ``options.damage_overflow`` what is left once it falls goes on to the next
    standing enemy in the encounter's order, and so on (§1.1: the sides resolve as
    units). Each enemy's 防御補正 is taken from the part that reaches it.
    """
    standing = _standing_enemies(state)
    first = next((e for e in standing if e.name == named), standing[0])
    order = [first, *(e for e in standing if e is not first)]
    lines: list[DamageLine] = []
    remaining = diff
    for enemy in order:
        if remaining <= 0:
            break
        steps = (Term(label="防御補正", value=-enemy.armour),) if enemy.armour else ()
        dealt = min(enemy.hp, max(0, remaining - enemy.armour))
        hp_after = enemy.hp - dealt
        _replace_enemy(state, enemy.model_copy(update={"hp": hp_after}))
        lines.append(DamageLine(target=enemy.name, side="enemy", difference=remaining, steps=steps,
                                damage=dealt, hp_before=enemy.hp, hp_after=hp_after))
        if hp_after > 0 or not state.options.damage_overflow:
            break
        remaining -= dealt + enemy.armour
    return lines


def _damage_pc(
    state: BattleState, target: Character, diff: int, source: DiceSource
) -> tuple[DamageLine, LifeCheck | None]:
    options = state.options
    waves = casts_of(state, Spell.HEALING_WAVE)
    halve = any(w.mode is HealingWaveMode.HALVE for w in waves)
    endure = any(w.mode is HealingWaveMode.ENDURE and w.target == target.name for w in waves)
    steps: list[Term] = []
    amount = diff
    if halve and options.healing_wave_halves == "difference":
        steps.append(Term(label="【治癒の波動】半減", value=amount // 2 - amount))
        amount //= 2
    if target.armour.reduction:
        steps.append(Term(label=f"防具({target.armour.name})", value=-target.armour.reduction))
    if target.shield.protection:
        steps.append(Term(label=target.shield.value, value=-target.shield.protection))
    amount = max(0, amount - target.protection)
    shields = [c for c in casts_of(state, Spell.MANA_SHIELD) if c.target == target.name]
    if shields and amount:
        cut = min(amount, options.mana_shield_amount * len(shields))
        steps.append(Term(label="【魔力盾】", value=-cut))
        amount -= cut
    if halve and options.healing_wave_halves == "final_damage" and amount:
        steps.append(Term(label="【治癒の波動】半減", value=amount // 2 - amount))
        amount //= 2
    if casts_of(state, Spell.SANCTUARY) and amount:
        steps.append(Term(label="【聖域】", value=-amount))
        amount = 0
    hp_after = target.hp - amount
    check: LifeCheck | None = None
    if hp_after > 0:
        _replace_pc(state, target.evolve(hp=hp_after))
    elif endure:
        hp_after = 1
        _replace_pc(state, target.evolve(hp=1))
        check = LifeCheck(
            character=target.name, target=options.life_check_target, result="endured", by="【治癒の波動】"
        )
    elif target.name in state.revive_wards:
        state.revive_wards.remove(target.name)
        hp_after = 0
        _replace_pc(state, target.evolve(hp=0, status=Status.DOWN))
        check = LifeCheck(
            character=target.name, target=options.life_check_target, result="down", by="【蘇生】"
        )
    else:
        group = _roll_group(source, "pc", target.name, "生死判定", 3, "JUDGE")
        state.current.dice.append(group)
        survived = group.total >= options.life_check_target
        hp_after = 0
        _replace_pc(state, target.evolve(hp=0, status=Status.DOWN if survived else Status.DEAD))
        if not survived:
            state.died_in_battle.append(target.name)
        check = LifeCheck(character=target.name, rolled=group.values, target=options.life_check_target,
                          result="down" if survived else "dead")
    line = DamageLine(target=target.name, side="pc", difference=diff, steps=tuple(steps), damage=amount,
                      hp_before=target.hp, hp_after=hp_after)
    return line, check


# -- out of combat -----------------------------------------------------------------------------------


class OutOfCombatResult(BaseModel):
    """A spell cast outside a battle: the party after it, the dice and the text to show."""

    model_config = ConfigDict(frozen=True)

    party: tuple[Character, ...]
    dice: tuple[int, ...]
    text: str


def cast_out_of_combat(
    party: Sequence[Character],
    caster: str,
    spell: Spell | str,
    source: DiceSource,
    *,
    target: str | None = None,
    options: CombatOptions = DEFAULT_OPTIONS,
) -> OutOfCombatResult:
    """Cast 【治癒】 (on ``target``) or 【治癒の波動】 (the whole party: 1d6 each, 2d6 when a
    英雄 casts, §6.2.4) outside a battle; a slot, or the lasting cost, is paid (§5.2).

    Raises:
        IllegalActionError: another spell, unknown caster/target, the caster is down,
            does not know the spell, or cannot pay. Nothing is changed or rolled.
    """
    members = list(validate_party(party))
    try:
        chosen = Spell(spell)
    except ValueError:
        raise IllegalActionError(UnknownSpellName(repr(spell)), "§6.2") from None
    if chosen not in OUT_OF_COMBAT:
        raise IllegalActionError(NoEffectOutside(chosen.label), "§6.2")
    scratch = BattleState(options=options, party=members, enemies=[], phase=Phase.ROLL)
    scratch.rounds.append(RoundRecord(number=1))
    action = CastSpell(
        caster=caster, spell=chosen, target=target if chosen is Spell.HEAL else None,
        mode=HealingWaveMode.HALVE if chosen is Spell.HEALING_WAVE else None,
    )
    problem = _explain_cast(scratch, action)
    if problem is not None:
        raise problem
    if chosen is Spell.HEALING_WAVE and target is not None:
        raise IllegalActionError(HealingWaveNoTarget())
    mark = source.mark()
    try:
        who = _find_pc(scratch, caster)
        paid, _overcast, lines = _pay_for_cast(scratch, who, chosen)
        _replace_pc(scratch, paid)
        rolled: list[int] = []
        if chosen is Spell.HEAL:
            assert target is not None
            patient = _find_pc(scratch, target)
            values = source.roll_many(stats(patient.rank).heal_dice, 6)
            rolled.extend(values)
            lines.append(_heal_out(scratch, patient, sum(values), values))
        else:
            count = 2 if who.rank is Rank.HERO else 1
            for patient in list(scratch.party):
                if patient.status is Status.DEAD:
                    continue
                values = source.roll_many(count, 6)
                rolled.extend(values)
                lines.append(_heal_out(scratch, _find_pc(scratch, patient.name), sum(values), values))
    except BaseException:
        source.restore(mark)
        raise
    text = "\n".join([written(texts.EngineCast(who.name, chosen.label)), *lines])
    return OutOfCombatResult(party=tuple(scratch.party), dice=tuple(rolled), text=text)


def _heal_out(state: BattleState, patient: Character, amount: int, values: Sequence[int]) -> str:
    new_hp = min(patient.max_hp, patient.hp + amount)
    _replace_pc(state, patient.evolve(hp=new_hp, status=Status.OK if new_hp > 0 else patient.status))
    return f"{patient.name}: {values} → HP {patient.hp} → {new_hp} / {patient.max_hp}"


def rest_party(party: Sequence[Character]) -> tuple[Character, ...]:
    """A day's rest: every living character's slots are refilled (§5.1)."""
    return tuple(c if c.status is Status.DEAD else c.rested() for c in validate_party(party))
