"""The actions a session loop hands to :meth:`Battle.apply`, as frozen value objects.

Each action has a ``kind`` literal, so a tool call's JSON arguments map onto one with
:func:`parse_action` (``{"kind": "cast", "caster": "アリア", "spell": "火弾"}``).
Which action belongs at which pause is in :data:`ACTION_PHASES`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from gm_engine.combat.errors import IllegalActionError
from gm_engine.combat.spells import HealingWaveMode, Spell
from gm_engine.messages.texts import NotWellFormed


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SetSituationalBonus(_Action):
    """SETUP: the GM grants one PC a situational bonus this round (capped by rank, §9.1, §14.1)."""

    kind: Literal["situational_bonus"] = "situational_bonus"
    character: str
    bonus: int
    reason: str = Field(default="", max_length=200)


class TargetEnemy(_Action):
    """SETUP or ROLL: the enemy that takes the damage if the PC side wins (default: first standing)."""

    kind: Literal["target_enemy"] = "target_enemy"
    enemy: str


class TargetCharacter(_Action):
    """SETUP or ROLL: the PC that takes the damage if the enemy side wins (default: first standing)."""

    kind: Literal["target_character"] = "target_character"
    character: str


class CastSpell(_Action):
    """Cast a spell (windows in :mod:`gm_engine.combat.spells`).

    ``target`` names a PC for 魔力盾, 治癒, 蘇生 and 治癒の波動 in ``endure`` mode;
    ``amount`` is the HP 限界突破 converts; ``mode`` is 治癒の波動's halve/endure.
    """

    kind: Literal["cast"] = "cast"
    caster: str
    spell: Spell
    target: str | None = None
    amount: int | None = None
    mode: HealingWaveMode | None = None


class RollDice(_Action):
    """SETUP → ROLL: the player's 『戦闘開始』; both sides' dice are rolled (§4.2)."""

    kind: Literal["roll"] = "roll"


class Judge(_Action):
    """ROLL → JUDGE: final AP, damage, HP and life-or-death checks (§4.3)."""

    kind: Literal["judge"] = "judge"


class Narrate(_Action):
    """JUDGE → NARRATIVE: the player has read the judgement; the model narrates (§4.4)."""

    kind: Literal["narrate"] = "narrate"


class NextRound(_Action):
    """NARRATIVE → SETUP of the next round, while both sides stand (§4.4)."""

    kind: Literal["next_round"] = "next_round"


class EndBattle(_Action):
    """NARRATIVE → ENDED, once one side has fallen (§4.4)."""

    kind: Literal["end"] = "end"


class ResolveByNarrative(_Action):
    """【ナラティブ優先の原則】 (§0): at the first SETUP, before any die or spell, end the
    fight in the PCs' favour without dice; nothing is spent and the battle records it."""

    kind: Literal["narrative_priority"] = "narrative_priority"
    reason: str = Field(default="", max_length=300)


class FightItOut(_Action):
    """SETUP of round 1: the player wants the fight played out (§0: 「プレイヤーが戦闘描写を求めて
    いる場合は戦闘フェーズに入る」); 【ナラティブ優先の原則】 is refused from then on."""

    kind: Literal["fight_it_out"] = "fight_it_out"


Action = Annotated[
    SetSituationalBonus
    | TargetEnemy
    | TargetCharacter
    | CastSpell
    | RollDice
    | Judge
    | Narrate
    | NextRound
    | EndBattle
    | ResolveByNarrative
    | FightItOut,
    Field(discriminator="kind"),
]

ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)

#: The pauses at which each kind of action is taken (CastSpell: see the spell's windows).
ACTION_PHASES: dict[str, frozenset[str]] = {
    "situational_bonus": frozenset({"SETUP"}),
    "target_enemy": frozenset({"SETUP", "ROLL"}),
    "target_character": frozenset({"SETUP", "ROLL"}),
    "cast": frozenset({"SETUP", "ROLL", "JUDGE", "NARRATIVE"}),
    "roll": frozenset({"SETUP"}),
    "judge": frozenset({"ROLL"}),
    "narrate": frozenset({"JUDGE"}),
    "next_round": frozenset({"NARRATIVE"}),
    "end": frozenset({"NARRATIVE"}),
    "narrative_priority": frozenset({"SETUP"}),
    "fight_it_out": frozenset({"SETUP"}),
}


def parse_action(data: Action | dict[str, Any] | str) -> Action:
    """An action from a value object, a dict or a JSON string (a tool call's arguments).

    Raises:
        IllegalActionError: the data is not a well-formed action; the message says why.
    """
    if isinstance(data, _Action):
        return data
    try:
        if isinstance(data, str):
            return ACTION_ADAPTER.validate_json(data)
        return ACTION_ADAPTER.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(action)'}: {e['msg']}" for e in exc.errors()
        )
        raise IllegalActionError(NotWellFormed(problems)) from None
