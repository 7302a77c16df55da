"""Texts built from views: the facts, tables and persona parts every prompt is rendered from,
and the lines P1's own screen shows of its private news.

Each function reads one seat's view (or the public view) only: what a prompt or a
screen line may say is decided by which view it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from gm_engine.dice.result import Locale
from gm_engine.llm.prompts import render_prompt
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    ListSeparator,
    YourAttackGuarded,
    YourAttackSucceeded,
    YourDivineResult,
    YourGuard,
    YourGuardSaved,
    YourMediumResult,
    YourPartners,
    YourRole,
)
from gm_engine.sessions.personas import Notes, Persona
from gm_engine.tools.werewolf import (
    seat_label,
)
from gm_engine.werewolf import (
    MadmanClaims,
    Role,
    WerewolfOptions,
)
from gm_engine.werewolf.log import (
    ActionTaken,
    AttackResolved,
    ClaimMade,
    ClaimRequested,
    Declined,
    DivineResult,
    Executed,
    GuardResolved,
    MediumResult,
    MorningReport,
    NoExecution,
    PrivateEntry,
    PublicEntry,
    ResultStated,
    RoleDealt,
    Speech,
    VoteTally,
)
from gm_engine.werewolf.records import TimeOfDay
from gm_engine.werewolf.views import PlayerView, PrivateView, PublicView, StatedResult

ABILITY_LABELS = {"vote": "投票先", "attack": "襲撃先", "divine": "占い先", "guard": "護衛先"}


def who(pub: PublicView, seat: int) -> str:
    """``トウダ(P2)``."""
    return f"{pub.name(seat)}({seat_label(seat)})"


def fact_lines(private: PrivateView, pub: PublicView, *, today_only: bool = False) -> list[str]:
    """The facts of one seat's private view, one line each, in the form prompts use.

    The secrecy tests build these lines from every other seat's view and check that none
    reaches a prompt it may not reach. ``today_only`` drops the seat's own earlier choices
    (its earlier votes are public by now), which keeps prompts bounded.
    """
    me = seat_label(private.seat)
    lines: list[str] = []
    divined = 0
    votes_by_day: dict[int, int] = {}
    for entry in private.log:
        first_divine = isinstance(entry, ActionTaken) and entry.ability == "divine" and divined == 0
        runoff = False
        if isinstance(entry, ActionTaken) and entry.ability == "divine":
            divined += 1
        if isinstance(entry, ActionTaken) and entry.ability == "vote":
            runoff = votes_by_day.get(entry.day, 0) > 0  # a second vote the same day is the 決選投票
            votes_by_day[entry.day] = votes_by_day.get(entry.day, 0) + 1
        lines.extend(_fact(entry, me, pub, today_only, pre=first_divine, runoff=runoff))
    return lines


def _fact(
    entry: PrivateEntry,
    me: str,
    pub: PublicView,
    today_only: bool,
    *,
    pre: bool = False,
    runoff: bool = False,
) -> list[str]:
    # seats by their label alone: the roster of the system prompt names them once, and a
    # katakana name costs a tokenizer three times a seat label (this is every prompt's tail)
    if isinstance(entry, RoleDealt):
        partners = "・".join(seat_label(p) for p in entry.partners)
        return [f"{me}の役職: {entry.role.label}" + (f"（仲間の人狼 {partners}）" if partners else "")]
    if isinstance(entry, ActionTaken):
        if today_only and entry.day != pub.day:
            return []
        # the 占い師's first divine is always the 事前占い, on "day 1" like the first night's
        if entry.ability == "divine" and pre:
            when = "事前占い"
        elif entry.ability == "vote":
            when = f"{entry.day}日目の決選投票" if runoff else f"{entry.day}日目"
        else:
            when = f"{entry.day}日目の夜"
        return [f"{me}の{when}の{ABILITY_LABELS[entry.ability]}: {seat_label(entry.target)}"]
    if isinstance(entry, DivineResult):
        when = "事前占い" if entry.pre else f"{entry.day}日目の朝"
        return [f"{me}の占い結果（{when}）: {seat_label(entry.target)}は{entry.colour.label}"]
    if isinstance(entry, MediumResult):
        when = f"{entry.executed_day}日目の退席者"
        return [f"{me}の霊媒結果（{when}）: {seat_label(entry.target)}は{entry.colour.label}"]
    if isinstance(entry, AttackResolved):
        outcome = "成功" if entry.killed else "護衛されて失敗"
        target, decider = seat_label(entry.target), seat_label(entry.decided_by)
        return [f"{entry.day}日目の朝の襲撃: {target}（{decider}の決定、{outcome}）"]
    if isinstance(entry, GuardResolved):
        outcome = "襲撃を防いだ" if entry.success else "襲撃はなかった"
        return [f"{me}の護衛（{entry.day}日目の朝）: {seat_label(entry.target)}（{outcome}）"]
    return []


def public_info(pub: PublicView) -> str:
    """The 【公開情報】 block: 占い結果, 霊媒結果, CO状況 (the claims table; public facts only),
    each row only once it has something in it. Who left and when is not repeated here: the
    past days' summaries, today's morning line and the living seats say it already."""
    divine = [r for r in pub.stated_results if r.role is Role.SEER]
    medium = [r for r in pub.stated_results if r.role is Role.MEDIUM]

    def results(stated: Sequence[StatedResult]) -> str:
        texts = [f"{seat_label(r.speaker)}→{seat_label(r.target)} {r.colour.label}" for r in stated]
        return "、".join(texts)

    claimed = [f"{seat_label(s.seat)} {s.claim.label}" for s in pub.seats if s.claim is not None]
    rows = [
        ("占い結果", results(divine)),
        ("霊媒結果", results(medium)),
        ("CO状況", "、".join(claimed)),
    ]
    # a row with nothing in it is left out: rows of なし cost every prompt of day 1
    lines = [f"{label}: {text}" for label, text in rows if text]
    return "\n".join(["【公開情報】", *lines]) if lines else "【公開情報】なし"


def today_line(entry: PublicEntry, pub: PublicView) -> str | None:
    """One entry of today's log as a prompt line (None: not worth a line). Seats go by their
    label: the roster of the system prompt names them once for the whole game, the tools name
    them so too, and a label costs a third of a katakana name's tokens."""
    p = seat_label
    if isinstance(entry, Speech):
        return f"{p(entry.speaker)}: {entry.text or '（パス）'}"
    if isinstance(entry, ClaimMade):
        result = ""
        if entry.target is not None and entry.colour is not None:
            result = f" {p(entry.target)}は{entry.colour.label}"
        return f"{p(entry.speaker)} 【{entry.role.label}CO{result}】 {entry.text}".rstrip()
    if isinstance(entry, ResultStated):
        stated = f"{p(entry.target)}は{entry.colour.label}"
        return f"{p(entry.speaker)} 【結果発表 {stated}】 {entry.text}".rstrip()
    if isinstance(entry, ClaimRequested):
        return f"{p(entry.speaker)} 【CO要求 {entry.role.label}は名乗り出ろ】 {entry.text}".rstrip()
    if isinstance(entry, Declined):
        return f"{p(entry.speaker)} 【名乗り出ない】 {entry.text}".rstrip()
    if isinstance(entry, MorningReport):
        if entry.victim is None:
            return "朝: 襲撃による退席者はいませんでした"
        return f"朝: {p(entry.victim)}が襲撃されて退席しました"
    if isinstance(entry, VoteTally):
        label = "決選投票" if entry.runoff else "投票"
        votes = "、".join(
            f"{p(v.voter)}→{p(v.target)}（{v.reason}）" if v.reason else f"{p(v.voter)}→{p(v.target)}"
            for v in entry.votes
        )
        return f"【{label}結果】{votes}"
    if isinstance(entry, Executed):
        return f"【{p(entry.seat)}が退席しました】"
    if isinstance(entry, NoExecution):
        return "決選投票も同票のため、退席者はいません"
    return None


def day_summary(day: int, entries: Sequence[PublicEntry], pub: PublicView, *, brief: bool = False) -> str:
    """One line for a past day: morning, claims, stated results, requests, votes, departure.

    ``brief``: a day further back, as the morning's death and who left with who voted them
    out (its claims and results are in 【公開情報】 already, its requests are spent), so that
    the record of a long game grows by a few tokens a day, not by a day's whole vote."""
    p = seat_label
    parts: list[str] = []
    for entry in entries:
        if isinstance(entry, MorningReport):
            parts.append("朝 襲撃死なし" if entry.victim is None else f"朝 襲撃死 {p(entry.victim)}")
        elif brief:
            if isinstance(entry, Executed):
                parts.append(f"退席 {_voted_out(entries, entry.seat)}")
            elif isinstance(entry, NoExecution):
                parts.append("退席なし")
        elif isinstance(entry, ClaimMade):
            result = ""
            if entry.target is not None and entry.colour is not None:
                result = f"（{p(entry.target)} {entry.colour.label}）"
            parts.append(f"{p(entry.speaker)} {entry.role.label}CO{result}")
        elif isinstance(entry, ResultStated):
            parts.append(f"{p(entry.speaker)} 結果 {p(entry.target)} {entry.colour.label}")
        elif isinstance(entry, ClaimRequested):
            parts.append(f"{p(entry.speaker)} {entry.role.label}CO要求")
        elif isinstance(entry, VoteTally):
            label = "決選" if entry.runoff else "投票"
            parts.append(f"{label} {_votes_by_target(entry)}")
        elif isinstance(entry, Executed):
            parts.append(f"退席 {p(entry.seat)}")
        elif isinstance(entry, NoExecution):
            parts.append("退席なし")
    return f"{day}日目: " + (" / ".join(parts) if parts else "特になし")


def _voted_out(entries: Sequence[PublicEntry], seat: int) -> str:
    """``P3←P2,P4,P5``: the seat executed and who voted for it in the vote that decided."""
    tallies = [e for e in entries if isinstance(e, VoteTally)]
    if not tallies:
        return seat_label(seat)
    voters = [seat_label(v.voter) for v in tallies[-1].votes if v.target == seat]
    return f"{seat_label(seat)}←{','.join(voters)}"


def _votes_by_target(tally: VoteTally) -> str:
    """``P4←P2,P3（2） P8←P4（1）``: who voted for whom, most votes first (shorter than one
    arrow per voter, and it reads as the count)."""
    voters: dict[int, list[str]] = {}
    for vote in tally.votes:
        voters.setdefault(vote.target, []).append(seat_label(vote.voter))
    ranked = sorted(voters.items(), key=lambda item: (-len(item[1]), item[0]))
    return " ".join(f"{seat_label(target)}←{','.join(names)}（{len(names)}）" for target, names in ranked)


#: Today's record is folded in blocks of this many lines: once it holds two blocks and more,
#: every whole block but the last one is one summary line. The text before the newest lines
#: then changes once a block, not once a line, so a server's prefix cache keeps serving it.
FOLD_BLOCK = 3

#: What opens the line of today's folded blocks, and what stands between two blocks on it.
FOLD_MARK = "（要約）"
BLOCK_SEPARATOR = "。"

#: The past days given in full (claims, requests, every vote); the days before them are one
#: short line each (:func:`day_summary` with ``brief``).
RECENT_DAYS = 1


def today_lines(entries: Sequence[PublicEntry], pub: PublicView) -> list[str]:
    """Today's record as prompt lines: the newest block or two in full, the older whole blocks
    summarised from their facts (claims, requests, results, who declined, who spoke) on one
    line, a block after another (a new fold adds to its end, so the text before stays as the
    earlier prompts had it)."""
    kept = [(entry, line) for entry in entries if (line := today_line(entry, pub)) is not None]
    folded = max(0, (len(kept) - FOLD_BLOCK) // FOLD_BLOCK) * FOLD_BLOCK
    blocks = [
        _fold([entry for entry, _ in kept[start : start + FOLD_BLOCK]], pub)
        for start in range(0, folded, FOLD_BLOCK)
    ]
    lines = [f"{FOLD_MARK}{BLOCK_SEPARATOR.join(blocks)}"] if blocks else []
    lines.extend(line for _, line in kept[folded:])
    return lines


def _fold(entries: Sequence[PublicEntry], pub: PublicView) -> str:
    """One line for a block of today's record: its facts in order, its speeches by speaker."""
    parts: list[str] = []
    declined: list[str] = []
    spoke: list[str] = []
    for entry in entries:
        if isinstance(entry, Declined):
            declined.append(seat_label(entry.speaker))
        elif isinstance(entry, Speech):
            spoke.append(seat_label(entry.speaker))
        else:
            summary = day_summary(entry.day, [entry], pub).split(": ", 1)[1]
            if summary != "特になし":
                parts.append(summary)
    if declined:
        parts.append(f"名乗り出ない {','.join(declined)}")
    if spoke:
        parts.append(f"発言 {','.join(spoke)}")
    return " / ".join(parts)


def table_vars(pub: PublicView, *, facts_only: bool = False) -> dict[str, Any]:
    """The public part of every prompt: phase, who is alive, 【公開情報】, past days, today.

    ``facts_only`` (a vote): today's talk as one line of its facts, like a past day's, and none
    of its speeches. At night the day's talk is over and is given so too."""
    by_day: dict[int, list[PublicEntry]] = {}
    for entry in pub.log:
        by_day.setdefault(entry.day, []).append(entry)
    # a night choice, or a vote, rests on the day's facts (claims, results, requests, votes, who
    # left), and on the reader's own notes of the talk; the speeches would cost every one of
    # those prompts the whole day again
    night = pub.time is TimeOfDay.NIGHT
    summarised = night or facts_only or pub.stage == "pre_divination"
    last = pub.day if summarised else pub.day - 1
    days = [day for day in sorted(by_day) if 1 <= day <= last]
    recent = set(days[-RECENT_DAYS:])
    past = [day_summary(day, by_day[day], pub, brief=day not in recent) for day in days]
    today = [] if summarised else today_lines(by_day.get(pub.day, []), pub)
    gone = [f"{who(pub, s)}（{d}日目 追放）" for d, s in pub.executed]
    gone += [f"{who(pub, s)}（{d}日目の朝 襲撃）" for d, s in pub.victims]
    return {
        "day": pub.day,
        "phase": f"{pub.day}日目・{pub.time.label}・{pub.step.label}",
        "alive": [pub.name(s.seat) for s in pub.seats if s.alive],
        "alive_seats": [seat_label(s.seat) for s in pub.seats if s.alive],
        "gone": gone,
        "public_info": public_info(pub),
        "past_days": past,
        "today": today,
        "night": summarised,
    }


#: The rules a persona's system message carries, by the kind of turn it is for: a speech (a
#: discussion turn or a CO要求's answer: the CO rules, the speech's form, the document's
#: "settle on a prime suspect first"), a vote, or a night choice (the 事前占い included).
RulesKind = Literal["talk", "vote", "night"]

RULES_KIND_OF_TASK: dict[str, RulesKind] = {
    "discussion": "talk",
    "answer": "talk",
    "vote": "vote",
    "night": "night",
    "pre_divination": "night",
}


def persona_vars(persona: Persona, *, werewolf: bool, kind: RulesKind = "talk") -> dict[str, Any]:
    """The persona part of a prompt for turns of ``kind``. A speech (``talk``) gets the manner,
    the werewolf manner when its role is 人狼, and one sample line; a vote, whose reason is one
    public sentence, gets the voice only (the first person and one sample reason): the manners
    are how a persona argues, and a vote argues nothing; a night choice says nothing and uses
    neither."""
    voice = persona.voice
    filler = {"target": "〇〇", "role": "占い師", "color": "白"}
    # one line gives the voice (the shortest of its kind: every line of a kind is in it): a
    # 人狼's cover line, everyone else's suspicion, a vote's reason; more cost every prompt of
    # the game without saying more
    lines: list[str] = []
    if kind == "talk":
        lines = [min(voice.werewolf_cover if werewolf else voice.suspect, key=len)]
    elif kind == "vote":
        lines = [min(voice.vote_reason, key=len)]
    talk = kind == "talk"
    return {
        "name": persona.name,
        "label": persona.label,
        "first_person": persona.first_person,
        "manner": persona.manner if talk else "",
        "werewolf_manner": persona.werewolf_manner if werewolf and talk else "",
        "samples": [line.format(**filler) for line in lines],
    }


def persona_system_prompt(
    persona: Persona, view: PlayerView, rules: WerewolfOptions, kind: RulesKind = "talk"
) -> str:
    """The persona's system message for turns of ``kind`` (the game, the roster, the rules that
    kind of turn needs, then the persona): fixed for the whole game, so that each persona's
    prompts of one kind share their head and a server's prefix cache keeps serving it."""
    pub = view.public
    return render_prompt(
        "persona_system.j2",
        kind=kind,
        persona=persona_vars(persona, werewolf=view.private.role is Role.WEREWOLF, kind=kind),
        roster=[{"label": seat_label(s.seat), "name": s.name} for s in pub.seats],
        rules={
            "madman_may_claim": rules.madman_claims is MadmanClaims.LIKE_WEREWOLF,
        },
    )


def persona_task_prompt(
    template: str,
    persona: Persona,
    notes: Notes,
    view: PlayerView,
    task: Mapping[str, Any],
    table: Mapping[str, Any] | None = None,
) -> str:
    """A persona's user message for one turn, from its own view and notes only.

    ``table`` may pass :func:`table_vars` of ``view.public`` already computed (it is the
    same for every reader at the same moment; a vote's is computed with ``facts_only``)."""
    return render_prompt(
        template,
        persona=persona_vars(persona, werewolf=view.private.role is Role.WEREWOLF),
        table=dict(table) if table is not None else table_vars(view.public),
        me={"facts": fact_lines(view.private, view.public, today_only=True)},
        notes=list(notes.lines),
        task=dict(task),
    )


def narrator_prompt(pub: PublicView, event: str, locale: Locale = "ja") -> str:
    """The GM narrator's message: public facts and the event only, in the table's language."""
    if locale == "en":
        return render_prompt("narrator_en.j2", table=narrator_table_en(pub), event=event)
    return render_prompt("narrator.j2", table=table_vars(pub), event=event)


def narrator_table_en(pub: PublicView) -> dict[str, Any]:
    """What the English narrator prompt says of the table: the phase, who is alive, who left."""
    time = "daytime" if pub.time is TimeOfDay.DAY else "night"
    gone = [f"{who(pub, s)} (voted out on day {d})" for d, s in pub.executed]
    gone += [f"{who(pub, s)} (attacked, morning of day {d})" for d, s in pub.victims]
    return {
        "phase": f"day {pub.day}, {time}",
        "alive": [pub.name(s.seat) for s in pub.seats if s.alive],
        "gone": gone,
    }


def private_screen_lines(entry: PrivateEntry, pub: PublicView, locale: Locale = "ja") -> list[str]:
    """What P1 learns privately, as shown on its own screen (in ``locale``)."""
    message: Message
    if isinstance(entry, RoleDealt):
        lines = [render(YourRole(entry.role.label), locale)]
        if entry.partners:
            partners = render(ListSeparator(), locale).join(who(pub, p) for p in entry.partners)
            lines.append(render(YourPartners(partners), locale))
        return lines
    if isinstance(entry, DivineResult):
        message = YourDivineResult(who(pub, entry.target), entry.colour.label)
    elif isinstance(entry, MediumResult):
        message = YourMediumResult(who(pub, entry.target), entry.colour.label)
    elif isinstance(entry, AttackResolved):
        attacked = who(pub, entry.target)
        message = YourAttackSucceeded(attacked) if entry.killed else YourAttackGuarded(attacked)
    elif isinstance(entry, GuardResolved):
        guarded = who(pub, entry.target)
        message = YourGuardSaved(guarded) if entry.success else YourGuard(guarded)
    else:
        return []
    return [render(message, locale)]
