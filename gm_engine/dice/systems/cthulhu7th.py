"""Call of Cthulhu 7th edition (新クトゥルフ神話TRPG), byte-compatible with BCDice 3.16.

Commands:

* ``CC(x)<=n`` skill roll with bonus (x > 0) or penalty (x < 0) dice; ``CC<=n`` and
  ``CC`` too. A trailing ``r h e c`` asks for a difficulty: the target becomes n, n/2,
  n/5 or 0 and the result is only success or failure (plus critical and fumble).
* ``CBR(x,y)`` one d100 against two targets: success, partial success or failure.
* ``FAR(w,x,y[,z][,d][,v])`` full-auto fire: w bullets, skill x, malfunction number y,
  bonus dice z (-2..2), stop at difficulty d (r, h, e), volley size v.
* ``BMR BMS PH MA FCL FCM`` tables, read from the Cthulhu7th table pack
  (see :mod:`gm_engine.dice.systems.tables`).

Rules, as BCDice applies them: a d100 is a tens d10 (10 reads 0) plus a ones d10 (10
reads 0), 00 reading 100; each bonus/penalty die adds a tens die and the lowest/highest
total is kept. 1 is a critical; the fumble is 100, or 96-100 when the target is under
50 (and for every full-auto volley past the first difficulty).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from gm_engine.dice.rands import RandKind, tens_then_ones
from gm_engine.dice.result import Detail, Outcome, model_builder
from gm_engine.dice.source import DiceSource
from gm_engine.dice.system import GameSystem, RollContext
from gm_engine.dice.systems._bcdice import outcome, refusal
from gm_engine.dice.systems.tables import FollowUp, roll_table

SYSTEM_ID = "Cthulhu7th"

Level = Literal[
    "critical", "extreme_success", "hard_success", "regular_success", "success", "failure", "fumble"
]
Difficulty = Literal["regular", "hard", "extreme", "critical"]
FullAutoStop = Literal["jam", "out_of_bullets", "difficulty_reached", "no_harder_difficulty"]
FarWarning = Literal[
    "bullets_capped", "volley_over_skill", "volley_low_skill", "volley_raised", "malfunction_sign"
]
FarError = Literal["volley_not_positive", "bullets_not_positive", "skill_not_positive", "bonus_out_of_range"]

CRITICAL: Level = "critical"
EXTREME: Level = "extreme_success"
HARD: Level = "hard_success"
REGULAR: Level = "regular_success"
SUCCESS: Level = "success"
FAILURE: Level = "failure"
FUMBLE: Level = "fumble"

_SUCCESS_LEVELS = frozenset({CRITICAL, EXTREME, HARD, REGULAR, SUCCESS})

LEVEL_JA: dict[str, str] = {
    CRITICAL: "クリティカル",
    EXTREME: "イクストリーム成功",
    HARD: "ハード成功",
    REGULAR: "レギュラー成功",
    SUCCESS: "成功",
    FAILURE: "失敗",
    FUMBLE: "ファンブル",
}
LEVEL_EN: dict[str, str] = {
    CRITICAL: "Critical success",
    EXTREME: "Extreme success",
    HARD: "Hard success",
    REGULAR: "Regular success",
    SUCCESS: "Success",
    FAILURE: "Failure",
    FUMBLE: "Fumble",
}
_DIFFICULTIES: tuple[Difficulty, ...] = ("regular", "hard", "extreme", "critical")
_DIFFICULTY_EN = {"hard": "Hard", "extreme": "Extreme", "critical": "Critical"}
_DIFFICULTY_JA = {"hard": "ハード", "extreme": "イクストリーム", "critical": "クリティカル"}
_DIFFICULTY_LETTER: dict[str, Difficulty] = {"R": "regular", "H": "hard", "E": "extreme", "C": "critical"}
_STOP_LETTER: dict[str, int] = {"r": 0, "h": 1, "e": 2}

#: Bonus/penalty dice CC accepts (BCDice 3.16 widened it from -2..2); FAR keeps -2..2.
CC_BONUS_LIMIT = 100
FAR_BONUS_MIN, FAR_BONUS_MAX = -2, 2
FAR_BULLET_LIMIT = 100

# Ruby's \d and \w are ASCII-only; re.ASCII keeps full-width digits out as BCDice does.
_CC = re.compile(r"CC([-+]?[0-9]+)?(?:<=([0-9]+)([RHEC])?)?", re.ASCII)
_CBR = re.compile(r"CBR\(([0-9]+),([0-9]+)\)", re.ASCII)
_FAR = re.compile(
    r"FAR\((-?[0-9]+),(-?[0-9]+),(-?[0-9]+)(?:,(-?[0-9]+)?)?(?:,(-?\w+)?)?(?:,(-?[0-9]+)?)?\)", re.ASCII
)
_MADNESS: dict[str, FollowUp] = {
    "BMR": FollowUp(10, "ラウンド", "rounds"),
    "BMS": FollowUp(10, "時間", "hours"),
}
_TABLES = frozenset({"BMR", "BMS", "PH", "MA", "FCL", "FCM"})


class CoC7SkillDetail(Detail):
    """A CC roll. ``target`` is what the roll was compared with (None: no comparison);
    ``tens`` are the tens dice (0-90), ``candidates`` the d100 totals they give with
    ``ones``, and ``value`` the one kept."""

    kind: Literal["coc7_skill"] = "coc7_skill"
    skill: int | None
    difficulty: Difficulty | None
    target: int | None
    bonus_dice: int
    tens: tuple[int, ...]
    ones: int | None
    candidates: tuple[int, ...]
    value: int
    level: Level | None

    def rand_kinds(self) -> tuple[RandKind, ...]:
        """Tens dice then the ones die; a bare d100 (no ones die) is one normal die."""
        return tens_then_ones(self.tens) if self.ones is not None else ()


class CoC7CombinedDetail(Detail):
    """A CBR roll: one d100 against two targets."""

    kind: Literal["coc7_combined"] = "coc7_combined"
    targets: tuple[int, int]
    value: int
    levels: tuple[Level, Level]
    result: Literal["success", "partial_success", "failure"]


class CoC7Volley(BaseModel):
    """One full-auto volley: its dice, level, and the bullets it hit, impaled and spent."""

    model_config = ConfigDict(frozen=True)

    number: int
    difficulty: Difficulty
    bonus_dice: int
    tens: tuple[int, ...]
    ones: int
    candidates: tuple[int, ...]
    value: int
    level: Level
    jammed: bool
    hits: int
    impales: int
    bullets_left: int


class CoC7FullAutoDetail(Detail):
    """A FAR roll: the arguments as used, every volley, the totals and why it stopped."""

    kind: Literal["coc7_full_auto"] = "coc7_full_auto"
    bullets: int
    skill: int
    malfunction: int
    bonus_dice: int
    stop_at: Difficulty | None
    volley_cap: int
    warnings: tuple[FarWarning, ...]
    volleys: tuple[CoC7Volley, ...]
    hits: int
    impales: int
    bullets_left: int
    stop_reason: FullAutoStop

    def rand_kinds(self) -> tuple[RandKind, ...]:
        """Each volley's tens dice then its ones die."""
        kinds: tuple[RandKind, ...] = ()
        for volley in self.volleys:
            kinds += tens_then_ones(volley.tens)
        return kinds


def level_of(total: int, target: int, fumble_below_50: bool = False) -> Level:
    """The level of a d100 ``total`` against ``target`` (BCDice's ``from_values``)."""
    if total == 1:
        return CRITICAL
    if total >= (96 if target < 50 or fumble_below_50 else 100):
        return FUMBLE
    if total <= target // 5:
        return EXTREME
    if total <= target // 2:
        return HARD
    if total <= target:
        return REGULAR
    return FAILURE


def level_against_difficulty(total: int, target: int) -> Level:
    """The level when a difficulty letter was given: only success or failure."""
    if total == 1:
        return CRITICAL
    if total >= (96 if target < 50 else 100):
        return FUMBLE
    return SUCCESS if total <= target else FAILURE


def roll_d100_with_bonus(source: DiceSource, bonus: int) -> tuple[int, tuple[int, ...], int, tuple[int, ...]]:
    """Roll ``|bonus| + 1`` tens dice then the ones die; keep the lowest (bonus) or highest.

    Returns (kept total, tens values, ones value, candidate totals).
    """
    count = bonus + 1 if bonus >= 0 else 1 - bonus
    # one draw of every die, tens first and the ones die last, as BCDice rolls them
    *tens_dice, ones_die = source.roll_many(count + 1, 10)
    ones = 0 if ones_die == 10 else ones_die
    if count == 1:
        ten = tens_dice[0]
        ten = 0 if ten == 10 else ten * 10
        total = (ten + ones) or 100
        return total, (ten,), ones, (total,)
    tens = tuple([0 if die == 10 else die * 10 for die in tens_dice])
    candidates = tuple([(ten + ones) or 100 for ten in tens])
    return (min(candidates) if bonus >= 0 else max(candidates)), tens, ones, candidates


class _SkillArgs(NamedTuple):
    bonus: int
    skill: int | None
    difficulty: Difficulty | None
    target: int | None


@lru_cache(maxsize=4096)
def _parse_skill(command: str) -> _SkillArgs | None:
    match = _CC.fullmatch(command)
    if match is None:
        return None
    bonus_text, skill_text, letter = match.groups()
    bonus = int(bonus_text) if bonus_text else 0
    skill = int(skill_text) if skill_text is not None else None
    difficulty = _DIFFICULTY_LETTER[letter] if letter else None
    target = skill
    if target == 0:
        target = None  # BCDice reads <=0 as "no target"
    elif target is not None:
        if difficulty == "hard":
            target //= 2
        elif difficulty == "extreme":
            target //= 5
        elif difficulty == "critical":
            target = 0
    return _SkillArgs(bonus, skill, difficulty, target)


@lru_cache(maxsize=4096)
def _parse_combined(command: str) -> tuple[int, int] | None:
    """CBR's two targets, or None when ``command`` is not a CBR."""
    match = _CBR.fullmatch(command)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


class _FarArgs(NamedTuple):
    bullets: int
    skill: int
    malfunction: int
    bonus: int
    stop_at: int | None
    volley_cap: int
    warnings: tuple[FarWarning, ...]
    error: FarError | None


@lru_cache(maxsize=4096)
def _parse_full_auto(command: str) -> _FarArgs | None:
    """FAR's arguments after BCDice's corrections, in its order of checks."""
    match = _FAR.fullmatch(command)
    if match is None:
        return None
    bullets, skill, malfunction = int(match.group(1)), int(match.group(2)), int(match.group(3))
    bonus = int(match.group(4)) if match.group(4) is not None else 0
    stop_at = _STOP_LETTER.get(match.group(5).lower()) if match.group(5) is not None else None
    volley_given = match.group(6) is not None
    volley_cap = int(match.group(6)) if volley_given else skill // 10
    warnings: list[FarWarning] = []

    def refused(error: FarError) -> _FarArgs:
        return _FarArgs(bullets, skill, malfunction, bonus, stop_at, volley_cap, tuple(warnings), error)

    if bullets > FAR_BULLET_LIMIT:
        bullets = FAR_BULLET_LIMIT
        warnings.append("bullets_capped")
    if volley_given:
        if volley_cap > skill // 10 and skill > 39:
            volley_cap = skill // 10
            warnings.append("volley_over_skill")
        elif skill <= 39 and volley_cap > 3:
            volley_cap = 3
            warnings.append("volley_low_skill")
        if volley_cap <= 0:
            return refused("volley_not_positive")
        if volley_cap < 3:
            volley_cap = 3
            warnings.append("volley_raised")
    if bullets <= 0:
        return refused("bullets_not_positive")
    if skill <= 0:
        return refused("skill_not_positive")
    if malfunction < 0:
        malfunction = -malfunction
        warnings.append("malfunction_sign")
    if not FAR_BONUS_MIN <= bonus <= FAR_BONUS_MAX:
        return refused("bonus_out_of_range")
    return _FarArgs(bullets, skill, malfunction, bonus, stop_at, volley_cap, tuple(warnings), None)


def _far_warning(code: FarWarning, args: _FarArgs, english: bool) -> str:
    if code == "bullets_capped":
        if english:
            return f"Too many bullets: the load is set to {FAR_BULLET_LIMIT}."
        return f"弾薬が多すぎます。装填された弾薬を{FAR_BULLET_LIMIT}発に変更します。"
    if code == "volley_over_skill":
        if english:
            return (
                "A volley holds at most skill/10 (rounded down) bullets: "
                f"the volley is set to {args.volley_cap}."
            )
        return (
            "ボレーの弾丸の数の上限は[技能値÷10（切り捨て）]発なので、それより高い数を指定できません。"
            f"ボレーの弾丸の数を{args.volley_cap}発に変更します。"
        )
    if code == "volley_low_skill":
        if english:
            return "With a skill of 39 or less a volley is 3 bullets: the volley is set to 3."
        return (
            "技能値が39以下ではボレーの弾丸の数の上限および下限は3発です。ボレーの弾丸の数を3発に変更します。"
        )
    if code == "volley_raised":
        if english:
            return "A volley holds at least 3 bullets: the volley is set to 3."
        return "ボレーの弾丸の数の下限は3発です。ボレーの弾丸の数を3発に変更します。"
    if english:
        return "The malfunction number is positive: the minus sign is dropped."
    return "故障ナンバーは正の数です。マイナス記号を外します。"


_FAR_ERRORS: dict[str, tuple[str, str]] = {
    "volley_not_positive": ("ボレーの弾丸の数は正の数です。", "The volley size must be a positive number."),
    "bullets_not_positive": ("弾薬は正の数です。", "Bullets must be a positive number."),
    "skill_not_positive": ("目標値は正の数です。", "The skill must be a positive number."),
    "bonus_out_of_range": (
        f"エラー。ボーナス・ペナルティダイスの値は{FAR_BONUS_MIN}～{FAR_BONUS_MAX}です。",
        f"Error: Bonus/Penalty Dice must be {FAR_BONUS_MIN} to {FAR_BONUS_MAX}.",
    ),
}


class Cthulhu7th(GameSystem):
    """Call of Cthulhu 7th edition: CC, CBR, FAR and the madness and casting tables."""

    id = SYSTEM_ID
    name = "新クトゥルフ神話TRPG"
    sort_key = "しんくとうるふしんわTRPG"
    prefixes = ("CC", "CBR", "FAR", "BMR", "BMS", "FCL", "FCM", "PH", "MA")
    help_text = (
        "CC(x)<=n 技能ロール（x はボーナス(+)・ペナルティ(-)ダイスの数）、n の後に難易度 r h e c（CC<=70h）。"
        "CBR(x,y) 組み合わせロール。FAR(w,x,y,z,d,v) フルオート射撃: 弾数、技能値、故障ナンバー、"
        "ボーナスダイス -2〜2、止める難易度 r / h / e、一斉射撃の弾数。表 BMR BMS PH MA FCL FCM"
        "（$GM_TABLES_DIR に Cthulhu7th の表パックが必要）。"
    )
    help_text_en = (
        "CC(x)<=n skill roll, x = bonus(+)/penalty(-) dice; difficulty letter r h e c after n "
        "(CC<=70h). CBR(x,y) combined roll. FAR(w,x,y,z,d,v) full auto: bullets, skill, "
        "malfunction number, bonus dice -2..2, stop at difficulty r/h/e, volley size. "
        "Tables BMR BMS PH MA FCL FCM (need the Cthulhu7th table pack in $GM_TABLES_DIR)."
    )
    command_pattern: ClassVar[re.Pattern[str] | None] = re.compile(
        r"CC|CBR|FAR|BMR|BMS|FCL|FCM|PH|MA", re.IGNORECASE
    )

    def eval_system_command(self, command: str, ctx: RollContext) -> Outcome | None:
        """Evaluate CC, CBR, FAR or a table command; None when ``command`` is none of them."""
        head = command[:2]
        if head == "CC":
            return self._skill_roll(command, ctx)
        if head == "CB":
            return self._combined_roll(command, ctx)
        if head == "FA":
            return self._full_auto(command, ctx)
        if command in _TABLES:
            return roll_table(ctx, SYSTEM_ID, command, _MADNESS.get(command))
        return None

    # -- CC ----------------------------------------------------------------------------

    def _skill_roll(self, command: str, ctx: RollContext) -> Outcome | None:
        args = _parse_skill(command)
        if args is None:
            return None
        bonus, skill, difficulty, target = args
        english = ctx.locale == "en"
        if bonus == 0 and target is None:
            value = ctx.source.roll(100)
            detail = _new_coc7_skill_detail(
                kind="coc7_skill",
                skill=skill,
                difficulty=difficulty,
                target=None,
                bonus_dice=0,
                tens=(),
                ones=None,
                candidates=(value,),
                value=value,
                level=None,
            )
            return outcome(f"(1D100) > {value}" if english else f"(1D100) ＞ {value}", detail)

        if abs(bonus) > CC_BONUS_LIMIT:
            text = (
                f"Bonus/Penalty Dice must be between -{CC_BONUS_LIMIT} and {CC_BONUS_LIMIT}"
                if english
                else f"ボーナス・ペナルティダイスの値は-{CC_BONUS_LIMIT}以上、"
                f"{CC_BONUS_LIMIT}以下としてください"
            )
            return refusal(SYSTEM_ID, command, text)

        if bonus > 2 or bonus < -2:
            ctx.reserve_dice(abs(bonus) + 2)
        total, tens, ones, candidates = roll_d100_with_bonus(ctx.source, bonus)
        level: Level | None = None
        if target is not None:
            level = level_against_difficulty(total, target) if difficulty else level_of(total, target)
        detail = _new_coc7_skill_detail(
            kind="coc7_skill",
            skill=skill,
            difficulty=difficulty,
            target=target,
            bonus_dice=bonus,
            tens=tens,
            ones=ones,
            candidates=candidates,
            value=total,
            level=level,
        )
        expr = "1D100" if target is None else f"1D100<={target}"
        listed = ", ".join(map(str, candidates))
        if english:
            text = f"({expr}) Bonus/Penalty Dice[{bonus}] > {listed} > {total}"
            if level is not None:
                text += f" > {LEVEL_EN[level]}"
        else:
            text = f"({expr}) ボーナス・ペナルティダイス[{bonus}] ＞ {listed} ＞ {total}"
            if level is not None:
                text += f" ＞ {LEVEL_JA[level]}"
        if level is None:
            return outcome(text, detail)
        success = level in _SUCCESS_LEVELS
        return outcome(text, detail, success, not success, level == CRITICAL, level == FUMBLE)

    # -- CBR ---------------------------------------------------------------------------

    def _combined_roll(self, command: str, ctx: RollContext) -> Outcome | None:
        targets = _parse_combined(command)
        if targets is None:
            return None
        first, second = targets
        total = ctx.source.roll(100)
        level_1, level_2 = level_of(total, first), level_of(total, second)
        ok_1, ok_2 = level_1 in _SUCCESS_LEVELS, level_2 in _SUCCESS_LEVELS
        result: Literal["success", "partial_success", "failure"] = (
            "success" if ok_1 and ok_2 else "partial_success" if ok_1 or ok_2 else "failure"
        )
        detail = _new_coc7_combined_detail(
            kind="coc7_combined",
            targets=(first, second),
            value=total,
            levels=(level_1, level_2),
            result=result,
        )
        if ctx.locale == "en":
            rank = _COMBINED_EN[result]
            text = f"(1d100<={first},{second}) > {total}[{LEVEL_EN[level_1]},{LEVEL_EN[level_2]}] > {rank}"
        else:
            rank = _COMBINED_JA[result]
            text = f"(1d100<={first},{second}) ＞ {total}[{LEVEL_JA[level_1]},{LEVEL_JA[level_2]}] ＞ {rank}"
        # BCDice's failure flag needs both rolls failed (a fumble counts as failed).
        return outcome(text, detail, result == "success", result == "failure")

    # -- FAR ---------------------------------------------------------------------------

    def _full_auto(self, command: str, ctx: RollContext) -> Outcome | None:
        args = _parse_full_auto(command)
        if args is None:
            return None
        english = ctx.locale == "en"
        if args.error is not None:
            return refusal(SYSTEM_ID, command, _FAR_ERRORS[args.error][english])
        return _fire(ctx, args, english)


_COMBINED_JA = {"success": "成功", "partial_success": "部分的成功", "failure": "失敗"}
_COMBINED_EN = {"success": "Success", "partial_success": "Partial success", "failure": "Failure"}


def _fire(ctx: RollContext, args: _FarArgs, english: bool) -> Outcome:
    """Fire volleys: each adds a penalty die; past two penalty dice the difficulty rises."""
    skill, malfunction, stop_at = args.skill, args.malfunction, args.stop_at
    # A skill under 30 still fires the minimum volley of 3 and hits with 1 of them.
    volley_size = 3 if 1 <= skill < 30 else min(skill // 10, args.volley_cap)
    hit_base = 1 if 1 <= skill < 30 else volley_size // 2
    impale_floor, impale_ceil = volley_size // 2, volley_size - volley_size // 2
    names = LEVEL_EN if english else LEVEL_JA
    parts: list[str] = [_far_warning(code, args, english) + "\n" for code in args.warnings]
    parts.append(
        f"Bonus/Penalty Dice[{args.bonus}]" if english else f"ボーナス・ペナルティダイス[{args.bonus}]"
    )
    volleys: list[CoC7Volley] = []
    hits = impales = 0
    left = args.bullets
    dice = args.bonus
    number = 0
    stop_reason: FullAutoStop = "no_harder_difficulty"
    roll_many = ctx.source.roll_many
    for harder in range(4):
        difficulty = _DIFFICULTIES[harder]
        hit_types = _HIT_TYPES[harder]
        wide_fumble = harder >= 1
        if harder:
            if english:
                parts.append(f"\n[Difficulty raised to {_DIFFICULTY_EN[difficulty]}]")
            else:
                parts.append(f"\n【難易度が{_DIFFICULTY_JA[difficulty]}に変更】")
        while dice >= FAR_BONUS_MIN:
            number += 1
            # roll_d100_with_bonus, inlined: a FAR line rolls up to a dozen volleys
            count = dice + 1 if dice >= 0 else 1 - dice
            rolled = roll_many(count + 1, 10)
            ones = rolled[-1] % 10  # a 10 on the ones die reads 0
            if count == 1:
                ten = rolled[0] % 10 * 10
                total = (ten + ones) or 100
                tens: tuple[int, ...] = (ten,)
                candidates: tuple[int, ...] = (total,)
                listed = str(total)
            else:
                tens = tuple([die % 10 * 10 for die in rolled[:-1]])
                candidates = tuple([(ten + ones) or 100 for ten in tens])
                total = min(candidates) if dice >= 0 else max(candidates)
                listed = ", ".join(map(str, candidates))
            level = level_of(total, skill, wide_fumble)
            if english:
                parts.append(f"\nVolley {number}: > {listed} > {names[level]}")
            else:
                parts.append(f"\n{number}回目: ＞ {listed} ＞ {names[level]}")
            jammed = total >= malfunction
            if jammed:
                parts.append(", Malfunction (jammed)" if english else "　ジャム")
                hit = impale = 0
                stop_reason = "jam"
            else:
                hit, impale, spent = _volley_hits(
                    left, hit_types.get(level, "miss"), volley_size, hit_base, impale_floor, impale_ceil
                )
                if english:
                    parts.append(f" ({hit} hits, {impale} impales)")
                else:
                    parts.append(f"　（{hit}発が命中、{impale}発が貫通）")
                hits += hit
                impales += impale
                left -= spent
                if left <= 0:
                    stop_reason = "out_of_bullets"
            volleys.append(
                _new_volley(
                    number=number,
                    difficulty=difficulty,
                    bonus_dice=dice,
                    tens=tens,
                    ones=ones,
                    candidates=candidates,
                    value=total,
                    level=level,
                    jammed=jammed,
                    hits=hit,
                    impales=impale,
                    bullets_left=left,
                )
            )
            if jammed or left <= 0:
                break
            dice -= 1
        if stop_reason != "no_harder_difficulty":
            break
        if stop_at is not None and harder >= stop_at:
            parts.append(
                "\n[The chosen difficulty was reached: Full Auto ends.]"
                if english
                else "\n【指定の難易度となったので、処理を終了します。】"
            )
            stop_reason = "difficulty_reached"
            break
        dice += 1
    if english:
        parts.append(f"\n> {hits} regular hits, {impales} impales, {left} bullets left")
    else:
        parts.append(f"\n＞ {hits}発が通常命中、{impales}発が貫通、残弾{left}発")
    detail = _new_coc7_full_auto_detail(
        kind="coc7_full_auto",
        bullets=args.bullets,
        skill=skill,
        malfunction=malfunction,
        bonus_dice=args.bonus,
        stop_at=_DIFFICULTIES[stop_at] if stop_at is not None else None,
        volley_cap=args.volley_cap,
        warnings=args.warnings,
        volleys=tuple(volleys),
        hits=hits,
        impales=impales,
        bullets_left=left,
        stop_reason=stop_reason,
    )
    return outcome("".join(parts), detail)


# What a volley's level does at each raised difficulty (0 regular .. 3 critical): at
# hard only a hard success still hits, and at critical even a critical only hits.
_IMPALING: dict[str, str] = {CRITICAL: "impale", EXTREME: "impale"}
_HIT_TYPES: tuple[dict[str, str], ...] = (
    {HARD: "hit", REGULAR: "hit", **_IMPALING},
    {HARD: "hit", **_IMPALING},
    dict(_IMPALING),
    {CRITICAL: "hit"},
)


def _hit_type(harder: int, level: Level) -> str:
    """``hit``, ``impale`` or ``miss`` of a volley's level at a raised difficulty."""
    return _HIT_TYPES[harder].get(level, "miss")


def _volley_hits(
    left: int, hit_type: str, volley_size: int, hit_base: int, impale_floor: int, impale_ceil: int
) -> tuple[int, int, int]:
    """(hits, impales, bullets spent) of one volley with ``left`` bullets in the gun."""
    if left >= volley_size:
        if hit_type == "hit":
            return hit_base, 0, volley_size
        if hit_type == "impale":
            return impale_ceil, impale_floor, volley_size
        return 0, 0, volley_size
    # The last, short volley: half of what is left (at least 1 when a single bullet is left).
    half = 1 if left == 1 else left // 2
    if hit_type == "hit":
        return half, 0, left
    if hit_type == "impale":
        return left - half, half, left
    return 0, 0, left


# Builders of the models this module makes on every roll (see model_builder).
_new_volley = model_builder(CoC7Volley)
_new_coc7_skill_detail = model_builder(CoC7SkillDetail)
_new_coc7_combined_detail = model_builder(CoC7CombinedDetail)
_new_coc7_full_auto_detail = model_builder(CoC7FullAutoDetail)
