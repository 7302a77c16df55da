"""Character creation as a short dialogue the engine runs, one question at a time.

:class:`FantasyCreation` follows the fast-combat rules: the name (asked on its own and
checked: a greeting, a rule word or a sentence is not silently taken as a name), the rank
(一般人・駆け出し・熟練・英雄), then おまかせ, 未選択 or one's own choice of weapon, armour,
shield and spells within the rank's slots. :class:`GuidedCreation` makes a Call of Cthulhu
investigator or a The One Ring hero: the name, an occupation (calling) from the
scenario's short list, then a few extra skills.

Each :meth:`answer` returns what the engine says back (a refusal says what was wrong, in
the player's language, ``locale``, and leaves the dialogue where it was); :attr:`done`
tells when the character is made (:attr:`character` / :attr:`sheet`). The rule terms (ranks,
weapons, spells) stay Japanese display text in English too, and are answered as shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from gm_engine.adventure.intent import SPELL_WORDS, normalise
from gm_engine.adventure.scenario import Creation, GameSystem
from gm_engine.adventure.story import Sheet
from gm_engine.combat.characters import Character, create_auto, create_character, create_unselected
from gm_engine.combat.equipment import ARMOURS, WEAPONS, Shield
from gm_engine.combat.errors import CombatError
from gm_engine.combat.ranks import Rank, at_least, stats
from gm_engine.combat.spells import Spell
from gm_engine.dice.result import Locale
from gm_engine.messages.catalogue import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    ArmourAnswer,
    ArmourItem,
    ArmourQuestion,
    ArmourTaken,
    CallingQuestion,
    CannotMake,
    CharacterMade,
    CharacterMadeSheet,
    CharacterNameTooLong,
    ListSeparator,
    MadeAuto,
    MadeUnselected,
    ModeAnswer,
    ModeCustom,
    ModeQuestion,
    NameAgain,
    NameCommand,
    NameConfirm,
    NameControl,
    NameEmpty,
    NameNoLetters,
    NameOnly,
    NameQuestion,
    NameSentence,
    NameTaken,
    OccupationAnswer,
    OccupationDetail,
    OccupationQuestion,
    OccupationTaken,
    RankAnswer,
    RankQuestion,
    RankRow,
    RankTaken,
    ShieldAnswer,
    ShieldQuestion,
    ShieldTaken,
    ShieldTwoHandedAnswer,
    SkillAnswer,
    SkillsExactly,
    SkillsQuestion,
    SpellsAboveRank,
    SpellsQuestion,
    SpellsUnknownAnswer,
    SpellTwiceAnswer,
    TwoHandedItem,
    WeaponAboveRank,
    WeaponAnswer,
    WeaponQuestion,
    WeaponTaken,
)

#: The longest name taken.
MAX_NAME = 16

#: Lines that are something else than a name: asked about before they are taken.
_NOT_NAMES = frozenset(
    {
        "こんにちは",
        "こんばんは",
        "おはよう",
        "おはようございます",
        "はじめまして",
        "よろしく",
        "よろしくお願いします",
        "hello",
        "hi",
        "hey",
        "yo",
        "はい",
        "いいえ",
        "yes",
        "no",
        "ok",
        "okay",
        "次へ",
        "おまかせ",
        "未選択",
        "なし",
        "名前",
        "name",
        "test",
        "テスト",
        "あ",
        "a",
        "gm",
        *(r.value for r in Rank),
    }
)

YES = re.compile(
    r"^(?:はい|うん|ええ|そう|それで|ok|okay|yes|y|yep|sure|いいよ|お願いします|決定)[!！。]*$", re.I
)
NO = re.compile(r"^(?:いいえ|いや|違う|ちがう|no|n|nope|やめる|変える)[!！。]*$", re.I)


#: The spells' English names a player may answer with (the rules' names are accepted too).
_ENGLISH_SPELLS = {word: spell for word, spell in SPELL_WORDS.items() if word.isascii()}


@dataclass(frozen=True)
class NameVerdict:
    """What a name answer is: ``ok`` (taken), ``confirm`` (asked about) or ``refuse``
    (``reason`` says why, a message of the catalogue)."""

    kind: str
    name: str
    reason: Message | None = None


def check_name(text: str) -> NameVerdict:
    """Judge one answer to 「名前は？」 (see the module docstring)."""
    name = normalise(text).strip("「」『』\"'")
    if not name:
        return NameVerdict("refuse", name, NameEmpty())
    if any(unicodedata.category(c).startswith("C") for c in name):
        return NameVerdict("refuse", name, NameControl())
    if len(name) > MAX_NAME:
        return NameVerdict("refuse", name, CharacterNameTooLong(MAX_NAME, len(name)))
    if not any(c.isalpha() for c in name):
        return NameVerdict("refuse", name, NameNoLetters())
    if name.startswith("/") or name.startswith("[") or name.startswith("［"):
        return NameVerdict("refuse", name, NameCommand())
    if re.search(r"[。！？!?、]|です|ます|ください|したい|だよ", name) or len(name.split()) > 3:
        return NameVerdict("refuse", name, NameSentence())
    if len(name.split()) > 1 and any(w.lower() in _NOT_NAMES for w in name.split()):
        return NameVerdict("refuse", name, NameOnly())
    if name.lower() in _NOT_NAMES:
        return NameVerdict("confirm", name, NameConfirm(name))
    return NameVerdict("ok", name)


class _NameStep:
    """The name question and its confirmation, shared by both dialogues."""

    def __init__(self, locale: Locale) -> None:
        self.name: str | None = None
        self._pending: str | None = None
        self.locale = locale

    def question(self) -> str:
        if self._pending is not None:
            return render(NameConfirm(self._pending), self.locale)
        return render(NameQuestion(), self.locale)

    def answer(self, text: str) -> str:
        line = normalise(text)
        if self._pending is not None:
            pending, self._pending = self._pending, None
            if YES.match(line):
                self.name = pending
                return render(NameTaken(pending), self.locale)
            if NO.match(line) or not line:
                return render(NameAgain(), self.locale)
        verdict = check_name(line)
        if verdict.kind == "refuse":
            assert verdict.reason is not None
            return render(verdict.reason, self.locale)
        if verdict.kind == "confirm":
            self._pending = verdict.name  # the next question asks about it
            return ""
        self.name = verdict.name
        return render(NameTaken(verdict.name), self.locale)


_RANK_ALIASES = {
    "1": Rank.COMMONER,
    "2": Rank.NOVICE,
    "3": Rank.VETERAN,
    "4": Rank.HERO,
    "commoner": Rank.COMMONER,
    "novice": Rank.NOVICE,
    "veteran": Rank.VETERAN,
    "hero": Rank.HERO,
}


def _rank_of(line: str) -> Rank | None:
    for rank in Rank:
        if rank.value in line:
            return rank
    return _RANK_ALIASES.get(line.lower())


def _list_choice(line: str, names: list[str]) -> str | None:
    """A name from ``names`` by its number (1-based) or by its name."""
    if line.isdigit() and 1 <= int(line) <= len(names):
        return names[int(line) - 1]
    return line if line in names else next((n for n in names if n in line), None)


def rank_table(locale: Locale = DEFAULT_LOCALE) -> str:
    """The ranks with HP, AP dice and slots, as the rules list them."""
    rows = []
    for i, rank in enumerate(Rank, 1):
        s = stats(rank)
        rows.append(render(RankRow(i, rank.value, s.max_hp, s.ap_dice, s.slots), locale))
    return "\n".join(rows)


#: The three ways of choosing the equipment, as the player may name them in English too.
_MODES = ["おまかせ", "未選択", "自分で選ぶ"]
_MODE_ALIASES = {"auto": "おまかせ", "unselected": "未選択", "default": "未選択", "basic": "未選択"}


class FantasyCreation:
    """The fast-combat character dialogue (see the module docstring)."""

    def __init__(self, recommended: str = "駆け出し", locale: Locale = DEFAULT_LOCALE) -> None:
        self._name = _NameStep(locale)
        self.recommended = recommended
        self.locale = locale
        self.rank: Rank | None = None
        self.mode: str | None = None  # おまかせ, 未選択 or 自分で選ぶ
        self.weapon: str | None = None
        self.armour: str | None = None
        self.shield: str | None = None
        self.character: Character | None = None

    @property
    def done(self) -> bool:
        """Whether the character is made."""
        return self.character is not None

    def question(self) -> str:
        """What is asked now."""
        if self._name.name is None:
            return self._name.question()
        say = self._say
        if self.rank is None:
            return say(RankQuestion(self.recommended, rank_table(self.locale)))
        if self.mode is None:
            return say(ModeQuestion())
        separator = say(ListSeparator())
        if self.weapon is None:
            items = [
                say(TwoHandedItem(i, n, WEAPONS[n].ap_bonus))
                if WEAPONS[n].two_handed
                else f"{i}.{n}(+{WEAPONS[n].ap_bonus})"
                for i, n in enumerate(self._weapons(), 1)
            ]
            return say(WeaponQuestion(separator.join(items)))
        if self.armour is None:
            items = [say(ArmourItem(i, n, ARMOURS[n].reduction)) for i, n in enumerate(ARMOURS, 1)]
            return say(ArmourQuestion(separator.join(items)))
        if self.shield is None:
            return say(ShieldQuestion(separator.join(f"{i}.{s.value}" for i, s in enumerate(Shield, 1))))
        slots = stats(self.rank).slots
        return say(SpellsQuestion(slots, separator.join(s.value for s in Spell)))

    def _say(self, message: Message) -> str:
        return render(message, self.locale)

    def _weapons(self) -> list[str]:
        rank = self.rank or Rank.COMMONER
        return [n for n, w in WEAPONS.items() if at_least(rank, w.required_rank)]

    def answer(self, text: str) -> str:
        """Take one answer; returns the engine's reply (a refusal says why)."""
        line = normalise(text)
        say = self._say
        if self._name.name is None:
            return self._name.answer(line)
        if self.rank is None:
            rank = _rank_of(line)
            if rank is None:
                return say(RankAnswer())
            self.rank = rank
            return say(RankTaken(rank.value))
        if self.mode is None:
            mode = _list_choice(line, _MODES) or _MODE_ALIASES.get(line.lower())
            if mode is None and re.search(r"自分|選ぶ|custom|choose", line, re.I):
                mode = "自分で選ぶ"
            if mode is None:
                return say(ModeAnswer())
            if mode == "自分で選ぶ":
                self.mode = mode
                return say(ModeCustom())
            make = create_auto if mode == "おまかせ" else create_unselected
            self.character = make(self._name.name, self.rank)
            self.mode = mode
            return say(MadeAuto() if mode == "おまかせ" else MadeUnselected())
        if self.weapon is None:
            weapon = _list_choice(line, self._weapons())
            if weapon is None:
                if line in WEAPONS:
                    return say(WeaponAboveRank(line, WEAPONS[line].required_rank.value))
                return say(WeaponAnswer())
            self.weapon = weapon
            return say(WeaponTaken(weapon))
        if self.armour is None:
            armour = _list_choice(line, list(ARMOURS))
            if armour is None:
                return say(ArmourAnswer())
            self.armour = armour
            return say(ArmourTaken(armour))
        if self.shield is None:
            shield = _list_choice(line, [s.value for s in Shield])
            if shield is None:
                return say(ShieldAnswer())
            if shield != Shield.NONE.value and WEAPONS[self.weapon].two_handed:
                return say(ShieldTwoHandedAnswer(self.weapon))
            self.shield = shield
            return say(ShieldTaken(shield))
        return self._spells(line)

    def _spells(self, line: str) -> str:
        assert self.rank is not None and self._name.name is not None
        assert self.weapon is not None and self.armour is not None and self.shield is not None
        words: list[str] = []
        if line not in ("なし", "無し", "none", ""):
            for piece in re.split(r"[、，,・]+", line):
                # an English name may be two words (limit break); anything else splits at spaces
                english = _ENGLISH_SPELLS.get(piece.strip().lower())
                words.extend([english] if english else [w for w in piece.split() if w])
        spells = [_ENGLISH_SPELLS.get(w.lower(), w.strip("【】")) for w in words]
        known = [s.value for s in Spell]
        unknown = [w for w in spells if w not in known]
        slots = stats(self.rank).slots
        say = self._say
        if unknown:
            return say(SpellsUnknownAnswer(say(ListSeparator()).join(unknown)))
        if len(set(spells)) != len(spells):
            return say(SpellTwiceAnswer())
        if len(spells) > slots:
            return say(SpellsAboveRank(self.rank.value, slots, len(spells)))
        try:
            self.character = create_character(
                self._name.name, self.rank, self.weapon, self.armour, self.shield, spells
            )
        except CombatError as exc:  # a rule the steps above do not cover
            self.weapon = self.armour = self.shield = None
            return say(CannotMake(exc.explanation()))
        return say(CharacterMade())


class GuidedCreation:
    """An investigator (Cthulhu7th) or a hero (The One Ring) from the scenario's choices."""

    def __init__(self, system: GameSystem, creation: Creation, locale: Locale = DEFAULT_LOCALE) -> None:
        self.system = system
        self.creation = creation
        self.locale = locale
        self._name = _NameStep(locale)
        self.occupation: int | None = None
        self.sheet: Sheet | None = None

    @property
    def done(self) -> bool:
        """Whether the character is made."""
        return self.sheet is not None

    @property
    def _unit(self) -> str:
        return "%" if self.system is GameSystem.CTHULHU7 else "d"

    def question(self) -> str:
        """What is asked now."""
        if self._name.name is None:
            return self._name.question()
        say = self._say
        if self.occupation is None:
            rows = [
                f"  {i}. {o.name}: {o.text}" + say(OccupationDetail(self._skills(o.skills), o.hp))
                for i, o in enumerate(self.creation.occupations, 1)
            ]
            asked = OccupationQuestion if self.system is GameSystem.CTHULHU7 else CallingQuestion
            return say(asked("\n".join(rows)))
        extras = say(ListSeparator()).join(f"{i}.{s}" for i, s in enumerate(self.creation.extras, 1))
        return say(SkillsQuestion(self.creation.picks, f"{self.creation.extra_value}{self._unit}", extras))

    def _say(self, message: Message) -> str:
        return render(message, self.locale)

    def _skills(self, skills: Mapping[str, int]) -> str:
        return " ".join(f"{k}{v}{self._unit}" for k, v in skills.items())

    def answer(self, text: str) -> str:
        """Take one answer; returns the engine's reply (a refusal says why)."""
        line = normalise(text)
        say = self._say
        if self._name.name is None:
            return self._name.answer(line)
        names = [o.name for o in self.creation.occupations]
        if self.occupation is None:
            chosen = _list_choice(line, names)
            if chosen is None:
                return say(OccupationAnswer(len(names)))
            self.occupation = names.index(chosen)
            if self.creation.picks == 0:
                return self._finish([])
            return say(OccupationTaken(chosen))
        words = [w for w in re.split(r"[\s、，,・]+", line) if w]
        picked = [_list_choice(w, list(self.creation.extras)) for w in words]
        if None in picked or not words:
            return say(SkillAnswer())
        chosen_skills = [p for p in picked if p is not None]
        if len(set(chosen_skills)) != self.creation.picks:
            return say(SkillsExactly(self.creation.picks, len(set(chosen_skills))))
        return self._finish(chosen_skills)

    def _finish(self, extras: list[str]) -> str:
        assert self.occupation is not None and self._name.name is not None
        occupation = self.creation.occupations[self.occupation]
        skills = dict(occupation.skills)
        for skill in extras:
            skills[skill] = max(skills.get(skill, 0), self.creation.extra_value)
        self.sheet = Sheet(
            name=self._name.name,
            occupation=occupation.name,
            skills=skills,
            hp=occupation.hp,
            target_number=self.creation.target_number,
        )
        return self._say(CharacterMadeSheet(self.sheet.status_line(self.system, self.locale)))
