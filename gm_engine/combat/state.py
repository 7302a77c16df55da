"""The serializable state of a battle and its per-round records.

Everything a battle knows is here, in plain pydantic models, so a battle saves to
JSON, loads back, and hashes (:func:`canonical_json`) for transcripts.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gm_engine.combat.actions import Action
from gm_engine.combat.characters import Character
from gm_engine.combat.enemies import Difficulty, Enemy
from gm_engine.combat.options import CombatOptions
from gm_engine.combat.spells import HealingWaveMode, Spell


class Phase(StrEnum):
    """The pause a battle is at. Each phase's log is shown, then the battle waits for the player."""

    SETUP = "SETUP"
    ROLL = "ROLL"
    JUDGE = "JUDGE"
    NARRATIVE = "NARRATIVE"
    ENDED = "ENDED"


class Outcome(StrEnum):
    """How a battle ended."""

    PC_VICTORY = "PC陣営の勝利"
    ENEMY_VICTORY = "敵陣営の勝利"
    NARRATIVE_VICTORY = "ナラティブ優先による決着"


class DieGroup(BaseModel):
    """Dice rolled together for one purpose (one member's AP, a 火弾, a check…), in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: Literal["pc", "enemy"]
    owner: str
    purpose: str
    phase: Literal["ROLL", "JUDGE"]
    values: tuple[int, ...]
    discarded: bool = False

    @property
    def total(self) -> int:
        """Sum of the faces."""
        return sum(self.values)


class CastRecord(BaseModel):
    """A spell cast in this battle, with what it cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    round: int
    phase: str
    caster: str
    spell: Spell
    target: str | None = None
    amount: int | None = None
    mode: HealingWaveMode | None = None
    overcast: bool = False
    slots_after: int = 0


class Term(BaseModel):
    """One named term of a side's final AP."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    value: int


class DamageLine(BaseModel):
    """Damage to one combatant, every reduction named (§4.3, §8.1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    target: str
    side: Literal["pc", "enemy"]
    difference: int
    steps: tuple[Term, ...]
    damage: int
    hp_before: int
    hp_after: int


class HealLine(BaseModel):
    """HP restored by a spell."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    caster: str
    spell: Spell
    target: str
    rolled: tuple[int, ...]
    healed: int
    hp_before: int
    hp_after: int


class LifeCheck(BaseModel):
    """A life-or-death check (3d6 ≥ target): rolled, automatic (蘇生), or avoided (治癒の波動)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    character: str
    rolled: tuple[int, ...] = ()
    target: int
    result: Literal["down", "dead", "endured"]
    by: str = ""


class JudgeRecord(BaseModel):
    """The judgement of one round (the BATTLE_JUDGE log's numbers)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pc_terms: tuple[Term, ...]
    enemy_terms: tuple[Term, ...]
    pc_ap: int
    enemy_ap: int
    winner: Literal["pc", "enemy", "tie"]
    heals: tuple[HealLine, ...] = ()
    damage: tuple[DamageLine, ...] = ()
    checks: tuple[LifeCheck, ...] = ()
    notes: tuple[str, ...] = ()


class Declarations(BaseModel):
    """What was declared for the current round before the judgement."""

    model_config = ConfigDict(extra="forbid")

    situational: dict[str, int] = Field(default_factory=dict)
    situational_reasons: dict[str, str] = Field(default_factory=dict)
    enemy_target: str | None = None
    pc_target: str | None = None
    casts: list[CastRecord] = Field(default_factory=list)


class PendingCollapse(BaseModel):
    """A 【崩壊】 being channelled: it adds AP +1d6+3 in ``resolves_in``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    caster: str
    cast_in: int
    resolves_in: int


class RoundRecord(BaseModel):
    """Everything of one round: events at SETUP, every die (discarded ones kept), the judgement."""

    model_config = ConfigDict(extra="forbid")

    number: int
    setup_events: list[str] = Field(default_factory=list)
    declarations: Declarations = Field(default_factory=Declarations)
    dice: list[DieGroup] = Field(default_factory=list)
    rerolls: int = 0
    judge: JudgeRecord | None = None
    after_judge: list[str] = Field(default_factory=list)


class NarrativeResolution(BaseModel):
    """A fight ended by 【ナラティブ優先の原則】, with the numbers that allowed it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: str
    pc_expected_ap: float
    enemy_expected_ap: float


class BattleState(BaseModel):
    """A battle, whole. ``actions`` is every accepted action in order; ``fight_requested``
    records the player's wish to fight it out (no 【ナラティブ優先の原則】)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["gm_engine.combat.battle"] = "gm_engine.combat.battle"
    version: Literal[1] = 1
    options: CombatOptions
    party: list[Character]
    enemies: list[Enemy]
    difficulty: tuple[Difficulty, ...] = ()
    phase: Phase = Phase.SETUP
    round: int = Field(default=1, ge=1)
    rounds: list[RoundRecord] = Field(default_factory=list)
    pending_collapses: list[PendingCollapse] = Field(default_factory=list)
    revive_wards: list[str] = Field(default_factory=list)
    died_in_battle: list[str] = Field(default_factory=list)
    casts: list[CastRecord] = Field(default_factory=list)
    outcome: Outcome | None = None
    narrative_resolution: NarrativeResolution | None = None
    fight_requested: bool = False
    actions: list[Action] = Field(default_factory=list)
    seed: int | str | None = None

    @property
    def current(self) -> RoundRecord:
        """The record of the round in progress."""
        return self.rounds[-1]


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: the same state always gives the same bytes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state_hash(state: BattleState) -> str:
    """SHA-256 (hex) of the canonical JSON of ``state``."""
    return hashlib.sha256(canonical_json(state.model_dump(mode="json")).encode("utf-8")).hexdigest()
