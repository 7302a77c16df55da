"""Player characters (§2.2, §9, §10, §13.3, §14): frozen, validated models and their creation.

A :class:`Character` is a value: HP, slots and status change by making a new one
(:meth:`Character.evolve`), which validates again. Creation comes in three flavours,
as §13.3 and the [開始の手順] describe: explicit choices (:func:`create_character`),
未選択 (:func:`create_unselected`) and おまかせ (:func:`create_auto`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gm_engine.combat.equipment import ARMOURS, WEAPONS, Armour, Shield, Weapon
from gm_engine.combat.errors import InvalidCharacterError
from gm_engine.combat.ranks import Rank, at_least, stats
from gm_engine.combat.spells import Spell
from gm_engine.messages.catalogue import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    CharactersShareName,
    CostsTookMaxHp,
    DownWithHp,
    EngineLastingCost,
    HpAboveMaximum,
    MoreSlotsThanRank,
    NameBlank,
    NoSuchArmour,
    NoSuchRank,
    NoSuchShield,
    NoSuchWeapon,
    PartyEmpty,
    PartyTooLarge,
    ShieldWithTwoHanded,
    SlotsLeftAboveMaximum,
    SpellListedTwice,
    SpellsAboveSlots,
    SpellsNotAList,
    UnknownSpellOf,
    WeaponNeedsRank,
    ZeroHpStanding,
)
from gm_engine.messages.validation import validation_message


class Status(StrEnum):
    """Where a character stands: on its feet, down at 0 HP, or dead."""

    OK = "正常"
    DOWN = "戦闘不能"
    DEAD = "死亡"


class LastingCost(BaseModel):
    """A lasting cost paid for a spell cast out of slots (§5.2), kept on the character."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spell: Spell
    max_hp_loss: int = Field(ge=0)

    @property
    def message(self) -> Message:
        """The 特記事項 line as a message of the catalogue."""
        return EngineLastingCost(self.spell.label, self.max_hp_loss)

    @property
    def note(self) -> str:
        """The 特記事項 line: 因果の歪み（【火弾】）: 最大HP −5."""
        return render(self.message, DEFAULT_LOCALE)


class Character(BaseModel):
    """A player character.

    ``max_slots`` is the rank's slots (§5.1) unless created 未選択 (0, §13.3);
    ``spells`` are the spells known, at most ``max_slots`` of them (§5.1: slots are
    both the spells one can learn and the casts per day). ``max_hp`` is the rank's
    HP minus every lasting cost.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    rank: Rank
    weapon: Weapon
    armour: Armour
    shield: Shield = Shield.NONE
    spells: tuple[Spell, ...] = ()
    max_slots: int = Field(ge=0, le=5)
    slots_left: int = Field(ge=0, le=5)
    hp: int = Field(ge=0, le=30)
    status: Status = Status.OK
    lasting_costs: tuple[LastingCost, ...] = ()
    notes: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check_rules(self) -> Character:
        rank = stats(self.rank)
        if self.name != self.name.strip() or not self.name.strip():
            raise InvalidCharacterError(NameBlank())
        if not at_least(self.rank, self.weapon.required_rank):
            grade = "伝説武器" if self.weapon.ap_bonus >= 5 else "名匠武器"
            needed = self.weapon.required_rank.value
            raise InvalidCharacterError(
                WeaponNeedsRank(grade, self.weapon.ap_bonus, needed, self.name, self.rank.value)
            )
        if self.shield is not Shield.NONE and self.weapon.two_handed:
            raise InvalidCharacterError(ShieldWithTwoHanded(self.shield.value, self.weapon.name))
        if self.max_slots > rank.slots:
            raise InvalidCharacterError(MoreSlotsThanRank(self.rank.value, rank.slots, self.max_slots))
        if self.slots_left > self.max_slots:
            raise InvalidCharacterError(SlotsLeftAboveMaximum(self.slots_left, self.max_slots))
        if len(set(self.spells)) != len(self.spells):
            raise InvalidCharacterError(SpellListedTwice())
        if len(self.spells) > self.max_slots:
            raise InvalidCharacterError(SpellsAboveSlots(len(self.spells), self.max_slots))
        if self.max_hp < 1:
            raise InvalidCharacterError(CostsTookMaxHp())
        if self.hp > self.max_hp:
            raise InvalidCharacterError(HpAboveMaximum(self.hp, self.max_hp))
        if self.status is Status.OK and self.hp == 0:
            raise InvalidCharacterError(ZeroHpStanding())
        if self.status is not Status.OK and self.hp != 0:
            raise InvalidCharacterError(DownWithHp(self.status.value, self.hp))
        return self

    @property
    def max_hp(self) -> int:
        """The rank's HP (§14.1) minus lasting costs (§5.2)."""
        return stats(self.rank).max_hp - sum(c.max_hp_loss for c in self.lasting_costs)

    @property
    def ap_dice(self) -> int:
        """N of the Nd6 this character adds to the PC side's AP (§2.2)."""
        return stats(self.rank).ap_dice

    @property
    def equipment_ap(self) -> int:
        """Weapon bonus plus shield modifier (§9.1: outside the situational cap)."""
        return self.weapon.ap_bonus + self.shield.ap_modifier

    @property
    def protection(self) -> int:
        """Armour plus shield: damage removed when this character is hit (§8.1, §10.2)."""
        return self.armour.reduction + self.shield.protection

    @property
    def situational_cap(self) -> int:
        """The cap on this character's situational bonus (§14.1)."""
        return stats(self.rank).situational_cap

    @property
    def standing(self) -> bool:
        """On its feet: status 正常."""
        return self.status is Status.OK

    def evolve(self, **changes: Any) -> Character:
        """A copy with ``changes`` applied, validated again.

        Raises:
            InvalidCharacterError: the result breaks a rule.
        """
        data = self.model_dump()
        data.update(changes)
        return _build(data)

    def with_spells(self, spells: Iterable[Spell | str]) -> Character:
        """The [魔法変更: …] meta instruction (§5.2): a new list of spells known.

        Raises:
            InvalidCharacterError: unknown spell, duplicates, or more spells than slots.
        """
        return self.evolve(spells=_spells(spells))

    def rested(self) -> Character:
        """After a day's rest: slots refilled (§5.1: slots are casts per day). HP is unchanged."""
        return self.evolve(slots_left=self.max_slots)


def _spell(value: Spell | str) -> Spell:
    try:
        return Spell(value)
    except ValueError:
        known = ", ".join(s.value for s in Spell)
        raise InvalidCharacterError(UnknownSpellOf(repr(value), known), "§6.2") from None


def _spells(values: Iterable[Spell | str]) -> tuple[Spell, ...]:
    if isinstance(values, str):
        raise InvalidCharacterError(SpellsNotAList(repr(values)), "§6.2")
    try:
        return tuple(_spell(s) for s in values)
    except TypeError:
        raise InvalidCharacterError(SpellsNotAList(repr(values)), "§6.2") from None


def _build(data: dict[str, Any]) -> Character:
    try:
        return Character.model_validate(data)
    except ValidationError as exc:
        raise InvalidCharacterError(describe_validation_error(exc, Character)) from None


def describe_validation_error(exc: ValidationError, model: object = None) -> Message:
    """Every problem of ``exc`` as a catalogue message: the field, what was wrong and, for a
    field the ``model`` does not have, the ones it has; a rule of the document broken (an
    :class:`InvalidCharacterError` of a validator) in its own words."""
    return validation_message(exc, model)


def _weapon(value: Weapon | str) -> Weapon:
    if isinstance(value, Weapon):
        return value
    if isinstance(value, str) and value in WEAPONS:
        return WEAPONS[value]
    raise InvalidCharacterError(NoSuchWeapon(repr(value), ", ".join(WEAPONS)), "§9.2")


def _armour(value: Armour | str) -> Armour:
    if isinstance(value, Armour):
        return value
    if isinstance(value, str) and value in ARMOURS:
        return ARMOURS[value]
    raise InvalidCharacterError(NoSuchArmour(repr(value), ", ".join(ARMOURS)), "§9.3")


def _shield(value: Shield | str) -> Shield:
    try:
        return Shield(value)
    except ValueError:
        known = ", ".join(s.value for s in Shield)
        raise InvalidCharacterError(NoSuchShield(repr(value), known), "§10.2") from None


#: Other names the document gives the ranks: 熟練者 (§5.1), 熟練・騎士 and 英雄・伝説 (§14.1).
RANK_ALIASES: dict[str, Rank] = {"熟練者": Rank.VETERAN, "騎士": Rank.VETERAN, "伝説": Rank.HERO}


def parse_rank(value: Rank | str) -> Rank:
    """A rank from its name or one of the document's aliases (:data:`RANK_ALIASES`).

    Raises:
        InvalidCharacterError: no rank has that name.
    """
    if isinstance(value, str) and value in RANK_ALIASES:
        return RANK_ALIASES[value]
    try:
        return Rank(value)
    except ValueError:
        known = [r.value for r in Rank] + list(RANK_ALIASES)
        raise InvalidCharacterError(NoSuchRank(repr(value), ", ".join(known)), "§14.1") from None


_rank = parse_rank


def create_character(
    name: str,
    rank: Rank | str,
    weapon: Weapon | str,
    armour: Armour | str,
    shield: Shield | str = Shield.NONE,
    spells: Sequence[Spell | str] = (),
) -> Character:
    """A character from explicit choices, at full HP and full slots.

    Weapons and armour are list names (``"長剣"``, ``"鎖帷子"``) or custom models.

    Raises:
        InvalidCharacterError: a choice breaks a rule; the message names the clause.
    """
    chosen_rank = _rank(rank)
    slots = stats(chosen_rank).slots
    return _build(
        {
            "name": name,
            "rank": chosen_rank,
            "weapon": _weapon(weapon),
            "armour": _armour(armour),
            "shield": _shield(shield),
            "spells": _spells(spells),
            "max_slots": slots,
            "slots_left": slots,
            "hp": stats(chosen_rank).max_hp,
        }
    )


def create_unselected(name: str, rank: Rank | str) -> Character:
    """未選択 (§13.3 選択なし): weapon +1 (短剣), armour 1 (革), no shield, no magic, 0 slots.

    Raises:
        InvalidCharacterError: bad name or rank.
    """
    chosen_rank = _rank(rank)
    return _build(
        {
            "name": name,
            "rank": chosen_rank,
            "weapon": WEAPONS["短剣"],
            "armour": ARMOURS["革"],
            "shield": Shield.NONE,
            "spells": (),
            "max_slots": 0,
            "slots_left": 0,
            "hp": stats(chosen_rank).max_hp,
        }
    )


#: The spells おまかせ picks, in order, as far as the slots allow (at most two, §13.3).
AUTO_SPELLS: tuple[Spell, ...] = (Spell.HEAL, Spell.FIREBALL)


def create_auto(name: str, rank: Rank | str) -> Character:
    """おまかせ (§13.3): weapon +2 (長剣), armour 2 (鎖帷子), 小盾, and 1–2 spells.

    The spells are 【治癒】 then 【火弾】, as many as the rank's slots allow up to two
    (a 一般人 has no slots and so no spells).

    Raises:
        InvalidCharacterError: bad name or rank.
    """
    chosen_rank = _rank(rank)
    slots = stats(chosen_rank).slots
    return create_character(
        name, chosen_rank, WEAPONS["長剣"], ARMOURS["鎖帷子"], Shield.SMALL, AUTO_SPELLS[: min(2, slots)]
    )


def validate_party(party: Sequence[Character]) -> tuple[Character, ...]:
    """A party as a tuple, checked: 1 to 6 characters with distinct names.

    Raises:
        InvalidCharacterError: empty, too large, or two characters share a name.
    """
    members = tuple(party)
    if not members:
        raise InvalidCharacterError(PartyEmpty())
    if len(members) > 6:
        raise InvalidCharacterError(PartyTooLarge(len(members)))
    names = [c.name for c in members]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InvalidCharacterError(CharactersShareName(", ".join(duplicates)))
    return members
