"""Character creation as a short dialogue the engine runs, one question at a time.

:class:`FantasyCreation` follows the fast-combat rules: the name (asked on its own and
checked: a greeting, a rule word or a sentence is not silently taken as a name), the rank
(一般人・駆け出し・熟練・英雄), then おまかせ, 未選択 or one's own choice of weapon, armour,
shield and spells within the rank's slots. :class:`GuidedCreation` makes a Call of Cthulhu
investigator or a The One Ring hero: the name, an occupation (calling) from the
scenario's short list, then a few extra skills.

Each :meth:`answer` returns what the engine says back (a refusal says what was wrong, in
Japanese, and leaves the dialogue where it was); :attr:`done` tells when the character
is made (:attr:`character` / :attr:`sheet`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gm_engine.adventure.intent import normalise
from gm_engine.adventure.scenario import Creation, GameSystem
from gm_engine.adventure.story import Sheet
from gm_engine.combat.characters import Character, create_auto, create_character, create_unselected
from gm_engine.combat.equipment import ARMOURS, WEAPONS, Shield
from gm_engine.combat.errors import CombatError
from gm_engine.combat.ranks import Rank, at_least, stats
from gm_engine.combat.spells import Spell

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


@dataclass(frozen=True)
class NameVerdict:
    """What a name answer is: ``ok`` (taken), ``confirm`` (asked about) or ``refuse``."""

    kind: str
    name: str
    reason: str = ""


def check_name(text: str) -> NameVerdict:
    """Judge one answer to 「名前は？」 (see the module docstring)."""
    name = normalise(text).strip("「」『』\"'")
    if not name:
        return NameVerdict("refuse", name, "名前が空です。キャラクターの名前を入力してください。")
    if any(unicodedata.category(c).startswith("C") for c in name):
        return NameVerdict("refuse", name, "名前に制御文字は使えません。")
    if len(name) > MAX_NAME:
        return NameVerdict("refuse", name, f"名前は{MAX_NAME}文字までです（{len(name)}文字）。")
    if not any(c.isalpha() for c in name):
        return NameVerdict("refuse", name, "名前には文字を含めてください（数字や記号だけは使えません）。")
    if name.startswith("/") or name.startswith("[") or name.startswith("［"):
        return NameVerdict("refuse", name, "コマンドは名前にできません。名前だけを入力してください。")
    if re.search(r"[。！？!?、]|です|ます|ください|したい|だよ", name) or len(name.split()) > 3:
        return NameVerdict("refuse", name, "文章ではなく、名前だけを入力してください（例: アリア）。")
    if len(name.split()) > 1 and any(w.lower() in _NOT_NAMES for w in name.split()):
        return NameVerdict("refuse", name, "名前だけを入力してください（ランクや装備はこのあと聞きます）。")
    if name.lower() in _NOT_NAMES:
        return NameVerdict("confirm", name, f"「{name}」を名前にしますか？（はい／いいえ）")
    return NameVerdict("ok", name)


class _NameStep:
    """The name question and its confirmation, shared by both dialogues."""

    def __init__(self) -> None:
        self.name: str | None = None
        self._pending: str | None = None

    def question(self) -> str:
        if self._pending is not None:
            return f"「{self._pending}」を名前にしますか？（はい／いいえ）"
        return "あなたのキャラクターの名前を教えてください。"

    def answer(self, text: str) -> str:
        line = normalise(text)
        if self._pending is not None:
            pending, self._pending = self._pending, None
            if YES.match(line):
                self.name = pending
                return f"名前は「{pending}」に決まりました。"
            if NO.match(line) or not line:
                return "では、名前をもう一度どうぞ。"
        verdict = check_name(line)
        if verdict.kind == "refuse":
            return verdict.reason
        if verdict.kind == "confirm":
            self._pending = verdict.name  # the next question asks about it
            return ""
        self.name = verdict.name
        return f"名前は「{verdict.name}」に決まりました。"


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


def rank_table() -> str:
    """The ranks with HP, AP dice and slots, as the rules list them."""
    rows = []
    for i, rank in enumerate(Rank, 1):
        s = stats(rank)
        rows.append(f"  {i}. {rank.value}: HP{s.max_hp} APダイス{s.ap_dice}d6 魔法スロット{s.slots}")
    return "\n".join(rows)


class FantasyCreation:
    """The fast-combat character dialogue (see the module docstring)."""

    def __init__(self, recommended: str = "駆け出し") -> None:
        self._name = _NameStep()
        self.recommended = recommended
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
        if self.rank is None:
            return f"ランクを選んでください（おすすめ: {self.recommended}）。\n{rank_table()}"
        if self.mode is None:
            return (
                "装備と魔法の決め方を選んでください。\n  1. おまかせ（長剣・鎖帷子・小盾、魔法1〜2個）\n"
                "  2. 未選択（短剣・革鎧、魔法なし）\n  3. 自分で選ぶ"
            )
        if self.weapon is None:
            names = self._weapons()
            return "武器を選んでください: " + "、".join(
                f"{i}.{n}(+{WEAPONS[n].ap_bonus}{'・両手' if WEAPONS[n].two_handed else ''})"
                for i, n in enumerate(names, 1)
            )
        if self.armour is None:
            names = list(ARMOURS)
            return "防具を選んでください: " + "、".join(
                f"{i}.{n}(防具{ARMOURS[n].reduction})" for i, n in enumerate(names, 1)
            )
        if self.shield is None:
            return "盾を選んでください: " + "、".join(f"{i}.{s.value}" for i, s in enumerate(Shield, 1))
        slots = stats(self.rank).slots
        return f"覚える魔法を{slots}個まで、読点で区切って選んでください（なし も可）: " + "、".join(
            s.value for s in Spell
        )

    def _weapons(self) -> list[str]:
        rank = self.rank or Rank.COMMONER
        return [n for n, w in WEAPONS.items() if at_least(rank, w.required_rank)]

    def answer(self, text: str) -> str:
        """Take one answer; returns the engine's reply (a refusal says why)."""
        line = normalise(text)
        if self._name.name is None:
            return self._name.answer(line)
        if self.rank is None:
            rank = _rank_of(line)
            if rank is None:
                return "ランクは 一般人・駆け出し・熟練・英雄 のどれか（または番号 1〜4）で答えてください。"
            self.rank = rank
            return f"ランクは{rank.value}です。"
        if self.mode is None:
            mode = _list_choice(line, ["おまかせ", "未選択", "自分で選ぶ"])
            if mode is None and re.search(r"自分|選ぶ|custom|choose", line, re.I):
                mode = "自分で選ぶ"
            if mode is None:
                return "「おまかせ」「未選択」「自分で選ぶ」のどれか（または番号 1〜3）で答えてください。"
            if mode == "自分で選ぶ":
                self.mode = mode
                return "装備を一つずつ選びましょう。"
            make = create_auto if mode == "おまかせ" else create_unselected
            self.character = make(self._name.name, self.rank)
            self.mode = mode
            return f"{mode}で作成しました。"
        if self.weapon is None:
            weapon = _list_choice(line, self._weapons())
            if weapon is None:
                if line in WEAPONS:
                    need = WEAPONS[line].required_rank.value
                    return f"{line}は{need}以上でないと持てません。別の武器を選んでください。"
                return "一覧にある武器の名前か番号で答えてください。"
            self.weapon = weapon
            return f"武器は{weapon}。"
        if self.armour is None:
            armour = _list_choice(line, list(ARMOURS))
            if armour is None:
                return "一覧にある防具の名前か番号で答えてください。"
            self.armour = armour
            return f"防具は{armour}。"
        if self.shield is None:
            shield = _list_choice(line, [s.value for s in Shield])
            if shield is None:
                return "盾は なし・小盾・大盾 のどれか（または番号）で答えてください。"
            if shield != Shield.NONE.value and WEAPONS[self.weapon].two_handed:
                return f"{self.weapon}は両手武器なので盾は持てません。「なし」を選ぶか、番号 1 を。"
            self.shield = shield
            return f"盾は{shield}。"
        return self._spells(line)

    def _spells(self, line: str) -> str:
        assert self.rank is not None and self._name.name is not None
        assert self.weapon is not None and self.armour is not None and self.shield is not None
        words = (
            [] if line in ("なし", "無し", "none", "") else [w for w in re.split(r"[\s、，,・]+", line) if w]
        )
        spells = [w.strip("【】") for w in words]
        known = [s.value for s in Spell]
        unknown = [w for w in spells if w not in known]
        slots = stats(self.rank).slots
        if unknown:
            return f"知らない魔法です: {'、'.join(unknown)}。一覧から選んでください。"
        if len(set(spells)) != len(spells):
            return "同じ魔法が二度書かれています。"
        if len(spells) > slots:
            return f"{self.rank.value}が覚えられる魔法は{slots}個までです（{len(spells)}個指定）。"
        try:
            self.character = create_character(
                self._name.name, self.rank, self.weapon, self.armour, self.shield, spells
            )
        except CombatError as exc:  # a rule the steps above do not cover
            self.weapon = self.armour = self.shield = None
            return f"この組み合わせでは作れません（{exc}）。武器から選び直してください。"
        return "キャラクターができました。"


class GuidedCreation:
    """An investigator (Cthulhu7th) or a hero (The One Ring) from the scenario's choices."""

    def __init__(self, system: GameSystem, creation: Creation) -> None:
        self.system = system
        self.creation = creation
        self._name = _NameStep()
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
        who = "職業" if self.system is GameSystem.CTHULHU7 else "生業（コーリング）"
        if self.occupation is None:
            rows = [
                f"  {i}. {o.name}: {o.text}（"
                + " ".join(f"{k}{v}{self._unit}" for k, v in o.skills.items())
                + f" HP{o.hp}）"
                for i, o in enumerate(self.creation.occupations, 1)
            ]
            return f"{who}を選んでください。\n" + "\n".join(rows)
        extras = "、".join(f"{i}.{s}" for i, s in enumerate(self.creation.extras, 1))
        return (
            f"得意な技能を{self.creation.picks}つ選んでください（{self.creation.extra_value}{self._unit}になります）。"
            f"読点で区切って: {extras}"
        )

    def answer(self, text: str) -> str:
        """Take one answer; returns the engine's reply (a refusal says why)."""
        line = normalise(text)
        if self._name.name is None:
            return self._name.answer(line)
        names = [o.name for o in self.creation.occupations]
        if self.occupation is None:
            chosen = _list_choice(line, names)
            if chosen is None:
                return f"一覧の名前か番号（1〜{len(names)}）で答えてください。"
            self.occupation = names.index(chosen)
            if self.creation.picks == 0:
                return self._finish([])
            return f"{chosen}ですね。"
        words = [w for w in re.split(r"[\s、，,・]+", line) if w]
        picked = [_list_choice(w, list(self.creation.extras)) for w in words]
        if None in picked or not words:
            return "一覧にある技能の名前か番号で答えてください。"
        chosen_skills = [p for p in picked if p is not None]
        if len(set(chosen_skills)) != self.creation.picks:
            given = len(set(chosen_skills))
            return f"違う技能をちょうど{self.creation.picks}つ選んでください（{given}つ指定）。"
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
        return "キャラクターができました。\n" + self.sheet.status_line(self.system)
