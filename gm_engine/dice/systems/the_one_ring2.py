"""The One Ring 2nd edition (一つの指輪：指輪物語TRPG2版), byte-compatible with BCDice 3.16.

Commands:

* ``nRG[x][@y][Az][f][i][w][m]`` skill roll against target number n: one feat die
  (d12; 11 is the Eye of Sauron and counts 0, 12 the Gandalf rune, an automatic
  success) plus x success dice (d6; each 6 is a success icon). ``@y`` reports a
  piercing blow when the feat die is at least y; ``Az`` adds z to the total.
  Options, in any order, each optionally followed by a switch (``f1`` on, ``f0`` or a
  negative number off; the last one of a kind wins): ``f`` favoured and ``i``
  ill-favoured (two feat dice, best or worst kept and marked ◎; together they cancel),
  ``w`` weary (success dice 1-3 count 0), ``m`` miserable (the Eye of Sauron fails).
* ``FD[x][f][i]`` a feat die for tables, modified by x but kept within 1..10; the
  Eye and the rune are not modified.

Two or more success icons on a success is BCDice's critical flag.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar, Literal, NamedTuple

from gm_engine.dice.limits import MAX_DICE_PER_LINE
from gm_engine.dice.result import Detail, Outcome, model_builder
from gm_engine.dice.system import GameSystem, RollContext
from gm_engine.dice.systems._bcdice import outcome, refusal

SYSTEM_ID = "TheOneRing2nd"

EYE_OF_SAURON = 11
GANDALF_RUNE = 12
CHOSEN_MARK = "◎"

#: Most success dice one roll may ask for (BCDice has no limit; this keeps a typo such
#: as 9RG99999999 from rolling for minutes even outside the engine's dice budget).
MAX_SUCCESS_DICE = MAX_DICE_PER_LINE
#: Most dice BCDice's randomizer rolls at once (``UPPER_LIMIT_DICE_TIMES``); a larger
#: pool of success dice rolls none.
MAX_DICE_AT_ONCE = 200

Favour = Literal["favoured", "ill_favoured"]
SkillResult = Literal["automatic_success", "automatic_failure", "success", "failure"]

_RG = re.compile(
    r"([0-9]+)RG([0-9]*)(@([0-9]{0,2}))?(A(-?[0-9]*))?"
    r"([WFIM]-?[0-9]*)?([WFIM]-?[0-9]*)?([WFIM]-?[0-9]*)?([WFIM]-?[0-9]*)?",
    re.ASCII,
)
_FD = re.compile(r"FD(-?[0-9]*)([FI]-?[0-9]*)?([FI]-?[0-9]*)?", re.ASCII)

_JA = {
    "eye": "サウロンの目",
    "rune": "ガンダルフ・ルーン",
    "favoured": "有利",
    "ill_favoured": "不利",
    "weary": "疲労",
    "miserable": "絶望",
}
_EN = {
    "eye": "Eye of Sauron",
    "rune": "Gandalf rune",
    "favoured": "Favoured",
    "ill_favoured": "Ill-favoured",
    "weary": "Weary",
    "miserable": "Miserable",
}


class TORSkillDetail(Detail):
    """An nRG roll. ``feat_dice`` are the d12s rolled, ``kept_feat`` the one used (11 is
    the Eye of Sauron, 12 the Gandalf rune); ``success_icons`` is 成功度, the count of
    6s; ``piercing`` is None when no ``@`` threshold was asked for."""

    kind: Literal["tor_skill"] = "tor_skill"
    target_number: int
    feat_dice: tuple[int, ...]
    kept_feat: int
    success_dice: tuple[int, ...]
    success_icons: int
    modifier: int
    total: int
    favour: Favour | None
    weary: bool
    miserable: bool
    piercing_threshold: int | None
    piercing: bool | None
    result: SkillResult


class TORFeatDetail(Detail):
    """An FD roll: the feat dice, the one kept and the modified result (1..10, or 11/12)."""

    kind: Literal["tor_feat"] = "tor_feat"
    feat_dice: tuple[int, ...]
    kept_feat: int
    modifier: int
    result: int
    favour: Favour | None


def _switch_on(option: str) -> bool:
    # A bare letter is on; otherwise the number after it decides (Ruby's to_i: "-" is 0).
    if len(option) == 1:
        return True
    digits = option[1:]
    try:
        return int(digits) > 0
    except ValueError:
        return False


def _options(options: tuple[str | None, ...]) -> tuple[Favour | None, bool, bool]:
    """(favour, weary, miserable) from the option groups, the last switch of a kind winning."""
    favour: Favour | None = None
    weary = miserable = False
    for option in options:
        if option is None:
            continue
        letter = option[0]
        on = _switch_on(option)
        if letter == "W":
            weary = on
        elif letter == "M":
            miserable = on
        else:
            wanted: Favour = "favoured" if letter == "F" else "ill_favoured"
            if on:
                favour = wanted if favour in (None, wanted) else None
            elif favour == wanted:
                favour = None
    return favour, weary, miserable


def _choose(dice: list[int], favour: Favour | None) -> int:
    if favour == "ill_favoured":
        return EYE_OF_SAURON if EYE_OF_SAURON in dice else min(dice)
    if favour == "favoured":
        if GANDALF_RUNE in dice:
            return GANDALF_RUNE
        others = [d for d in dice if d != EYE_OF_SAURON]
        return max(others) if others else EYE_OF_SAURON
    return dice[0]


def _face(value: int, words: dict[str, str]) -> str:
    if value == GANDALF_RUNE:
        return words["rune"]
    if value == EYE_OF_SAURON:
        return words["eye"]
    return str(value)


def _roll_feat(ctx: RollContext, favour: Favour | None, words: dict[str, str]) -> tuple[list[int], int, str]:
    """Roll the feat dice; returns (dice, kept value, ``[◎8, 1]``-style text)."""
    roll = ctx.source.roll
    if favour is None:
        value = roll(12)
        return [value], value, f"[{_face(value, words)}]"
    dice = [roll(12), roll(12)]
    kept = _choose(dice, favour)
    chosen = dice.index(kept)
    first = f"{CHOSEN_MARK if chosen == 0 else ''}{_face(dice[0], words)}"
    second = f"{CHOSEN_MARK if chosen == 1 else ''}{_face(dice[1], words)}"
    return dice, kept, f"[{first}, {second}]"


def _signed(number: int) -> str:
    return f"+{number}" if number > 0 else str(number) if number < 0 else ""


class _SkillArgs(NamedTuple):
    target_number: int
    success_count: int
    piercing_threshold: int | None
    modifier: int
    favour: Favour | None
    weary: bool
    miserable: bool


def _number(text: str | None) -> int:
    # Ruby's to_i: an empty or bare "-" reads 0.
    return int(text) if text and text != "-" else 0


@lru_cache(maxsize=4096)
def _parse_skill(command: str) -> _SkillArgs | None:
    match = _RG.fullmatch(command)
    if match is None:
        return None
    groups = match.groups()
    # A bare "@" (threshold 0) never pierces; no "@" at all means no piercing check.
    piercing = _number(groups[3]) if groups[2] is not None else None
    favour, weary, miserable = _options(groups[6:10])
    return _SkillArgs(
        int(groups[0]), _number(groups[1]), piercing, _number(groups[5]), favour, weary, miserable
    )


@lru_cache(maxsize=1024)
def _parse_feat(command: str) -> tuple[int, Favour | None] | None:
    match = _FD.fullmatch(command)
    if match is None:
        return None
    favour, _, _ = _options((match.group(2), match.group(3)))
    return _number(match.group(1)), favour


class TheOneRing2nd(GameSystem):
    """The One Ring 2nd edition: nRG skill rolls and FD feat dice."""

    id = SYSTEM_ID
    name = "一つの指輪：指輪物語TRPG2版"
    sort_key = "ひとつのゆひわゆひわものかたりTRPG2"
    prefixes = (r"\d+RG", "FD")
    help_text = (
        "nRG[x][@y][Az][f][i][w][m]: 難易度 n、技量ダイス x 個、判定ダイスが y 以上で痛打、修正 z。"
        "f 有利、i 不利、w 疲労、m 絶望（それぞれ 1|0 で切り替えもできます。例 13RG3@10A1f）。"
        "FD[x][f][i]: 表に使う判定ダイス（修正 x）。"
    )
    help_text_en = (
        "nRG[x][@y][Az][f][i][w][m]: target number n, x success dice, piercing blow at feat die >= y, "
        "modifier z; f favoured, i ill-favoured, w weary, m miserable, each with an optional "
        "switch 1|0 (13RG3@10A1f). FD[x][f][i]: feat die for tables with modifier x."
    )
    command_pattern: ClassVar[re.Pattern[str] | None] = re.compile(r"[0-9]+RG|FD", re.IGNORECASE)

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        """Evaluate nRG or FD; None when ``command`` is neither."""
        if command.startswith("FD"):
            return self._feat_die(command, ctx)
        return self._skill_roll(command, ctx)

    def _skill_roll(self, command: str, ctx: RollContext) -> Outcome | None:
        args = _parse_skill(command)
        if args is None:
            return None
        target_number, success_count, piercing_threshold, modifier, favour, weary, miserable = args
        english = ctx.locale == "en"
        words = _EN if english else _JA
        if success_count > MAX_SUCCESS_DICE:
            text = (
                f"At most {MAX_SUCCESS_DICE} success dice can be rolled."
                if english
                else f"技量ダイスは{MAX_SUCCESS_DICE}個までです。"
            )
            return refusal(SYSTEM_ID, command, text)
        ctx.reserve_dice(success_count + 2)

        feat_dice, kept, feat_text = _roll_feat(ctx, favour, words)
        total = kept if kept != EYE_OF_SAURON else 0
        header = f"({len(feat_dice)}D12"
        dice_text = feat_text
        success_dice: tuple[int, ...] = ()
        icons = 0
        if success_count > 0:
            # BCDice's roll_barabara: past 200 dice at once the pool is empty (+[])
            rolled = success_count <= MAX_DICE_AT_ONCE
            success_dice = tuple(ctx.source.roll_many(success_count, 6)) if rolled else ()
            icons = success_dice.count(6)
            total += sum(d for d in success_dice if d > 3) if weary else sum(success_dice)
            header += f"+{success_count}D6"
            dice_text += "+[" + ", ".join(map(str, success_dice)) + "]"
        total = max(total + modifier, 0)
        signed = _signed(modifier)
        arrow = ">" if english else "＞"
        colon = ": " if english else "："
        head = f"{header}{signed}) {arrow} {dice_text}{signed}"

        condition = ""
        if favour is not None or weary or miserable:
            names = [words[favour]] if favour is not None else []
            if weary:
                names.append(words["weary"])
            if miserable:
                names.append(words["miserable"])
            condition = ("\nCondition: " if english else "\n状態：") + " ".join(names)

        # 0 or an empty threshold asks for no piercing check (BCDice's -1 and 0 alike).
        piercing = (
            None
            if piercing_threshold is None
            else piercing_threshold > 0 and kept >= piercing_threshold and kept != EYE_OF_SAURON
        )
        plural = "" if icons == 1 else "s"
        icons_text = f"{icons} success icon{plural}" if english else f"成功度 {icons}"
        piercing_text = (" Piercing blow!" if english else " 痛打発生！") if piercing else ""
        result: SkillResult
        if kept == GANDALF_RUNE:
            result = "automatic_success"
            auto = "Automatic success" if english else "自動成功"
            text = f"{head}{colon}{auto}[{icons_text}]{piercing_text}{condition}"
        elif miserable and kept == EYE_OF_SAURON:
            result = "automatic_failure"
            auto = "Automatic failure" if english else "自動失敗"
            text = f"{head}{colon}{auto}{condition}"
        else:
            numbers = (
                f"TN {target_number} Total {total}" if english else f"難易度 {target_number} 達成値 {total}"
            )
            if target_number > total:
                result = "failure"
                text = f"{head} {numbers}{colon}{'Failure' if english else '失敗'}{condition}"
            else:
                result = "success"
                text = (
                    f"{head} {numbers}{colon}{'Success' if english else '成功'}[{icons_text}]"
                    f"{piercing_text}{condition}"
                )
        detail = _new_tor_skill_detail(
            kind="tor_skill",
            target_number=target_number,
            feat_dice=tuple(feat_dice),
            kept_feat=kept,
            success_dice=success_dice,
            success_icons=icons,
            modifier=modifier,
            total=total,
            favour=favour,
            weary=weary,
            miserable=miserable,
            piercing_threshold=piercing_threshold,
            piercing=piercing,
            result=result,
        )
        succeeded = result in ("automatic_success", "success")
        return outcome(text, detail, succeeded, not succeeded, succeeded and icons >= 2)

    def _feat_die(self, command: str, ctx: RollContext) -> Outcome | None:
        parsed = _parse_feat(command)
        if parsed is None:
            return None
        modifier, favour = parsed
        english = ctx.locale == "en"
        words = _EN if english else _JA
        feat_dice, kept, feat_text = _roll_feat(ctx, favour, words)
        result = kept if kept in (EYE_OF_SAURON, GANDALF_RUNE) else min(max(kept + modifier, 1), 10)
        signed = _signed(modifier)
        arrow = ">" if english else "＞"
        text = f"({len(feat_dice)}D12{signed}) {arrow} {feat_text}{signed}"
        if modifier != 0 or len(feat_dice) != 1:
            text += f" {arrow} [{_face(result, words)}]"
        detail = _new_tor_feat_detail(
            kind="tor_feat",
            feat_dice=tuple(feat_dice),
            kept_feat=kept,
            modifier=modifier,
            result=result,
            favour=favour,
        )
        return outcome(text, detail)


# Builders of the models this module makes on every roll (see model_builder).
_new_tor_skill_detail = model_builder(TORSkillDetail)
_new_tor_feat_detail = model_builder(TORFeatDetail)
