"""Weapons (§9.2), armour (§9.3) and shields (§10).

A weapon's AP bonus is outside the situational cap (§9.1). A large shield costs AP −1
and protects 1, plus 2 more when its bearer takes damage (§10.2) — since protection
only ever counts when damage is taken, it protects 3 in every damage calculation.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from gm_engine.combat.ranks import Rank


class Weapon(BaseModel):
    """A weapon: a display name, its AP bonus (+0..+5, §9.2) and whether it takes both hands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    ap_bonus: int = Field(ge=0, le=5)
    two_handed: bool = False

    @property
    def required_rank(self) -> Rank:
        """The lowest rank that may wield it: 名匠 (+4) needs 熟練, 伝説 (+5) needs 英雄 (§9.2)."""
        if self.ap_bonus >= 5:
            return Rank.HERO
        if self.ap_bonus == 4:
            return Rank.VETERAN
        return Rank.COMMONER


class Armour(BaseModel):
    """Armour: a display name and the damage it removes (0..3, §9.3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=40)
    reduction: int = Field(ge=0, le=3)


class Shield(StrEnum):
    """Shields (§10.2); the value is the document's name."""

    NONE = "なし"
    SMALL = "小盾"
    LARGE = "大盾"

    @property
    def protection(self) -> int:
        """Damage removed when the bearer is hit: 小盾 1, 大盾 1 + 2 (§10.2)."""
        return {Shield.NONE: 0, Shield.SMALL: 1, Shield.LARGE: 3}[self]

    @property
    def ap_modifier(self) -> int:
        """AP change of carrying it: 大盾 −1 (§10.2)."""
        return -1 if self is Shield.LARGE else 0


#: The §9.2 weapon list, by the document's names.
WEAPONS: dict[str, Weapon] = {
    "素手": Weapon(name="素手", ap_bonus=0),
    "棍棒": Weapon(name="棍棒", ap_bonus=0),
    "短剣": Weapon(name="短剣", ap_bonus=1),
    "小剣": Weapon(name="小剣", ap_bonus=1),
    "長剣": Weapon(name="長剣", ap_bonus=2),
    "メイス": Weapon(name="メイス", ap_bonus=2),
    "大剣": Weapon(name="大剣", ap_bonus=3, two_handed=True),
    "戦斧": Weapon(name="戦斧", ap_bonus=3, two_handed=True),
    "名匠武器": Weapon(name="名匠武器", ap_bonus=4),
    "伝説武器": Weapon(name="伝説武器", ap_bonus=5),
}

#: The §9.3 armour list, by the document's names.
ARMOURS: dict[str, Armour] = {
    "布": Armour(name="布", reduction=0),
    "革": Armour(name="革", reduction=1),
    "鎖帷子": Armour(name="鎖帷子", reduction=2),
    "板金鎧": Armour(name="板金鎧", reduction=3),
}


def weapon(name: str) -> Weapon:
    """The §9.2 weapon called ``name``.

    Raises:
        KeyError: no such weapon in the list (the message lists the names).
    """
    try:
        return WEAPONS[name]
    except KeyError:
        raise KeyError(f"no weapon {name!r} in §9.2; known: {', '.join(WEAPONS)}") from None


def armour(name: str) -> Armour:
    """The §9.3 armour called ``name``.

    Raises:
        KeyError: no such armour in the list (the message lists the names).
    """
    try:
        return ARMOURS[name]
    except KeyError:
        raise KeyError(f"no armour {name!r} in §9.3; known: {', '.join(ARMOURS)}") from None
