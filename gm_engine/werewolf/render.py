"""The document's fixed texts, rendered from public log entries and views only.

* 【投票結果】 参加者名 → 投票先(投票理由) and 【投票集計】 参加者名：〇票 (names, never numbers);
* 【〇〇が退席しました】 (nothing else on an execution);
* 「占い師が事前占いを完了しました」 (to everyone but the 占い師, who is told its result instead);
* 【公開情報】 追放者 / 襲撃死者 / 占い結果 / 霊媒結果 / CO状況;
* 【ゲーム終了】 勝利陣営 / 生存者 / 死亡者 / 最終役職一覧;
* the 【CMD_…】 cues of what comes next.

Everything here reads a :class:`~gm_engine.werewolf.views.PublicView` (or a seat's
:class:`~gm_engine.werewolf.views.PlayerView` for its own private lines), so a renderer cannot
show what its reader may not know.

The records keep the document's format in every locale (docs/werewolf.md, "The player's
language"); the sentences around them (the day beginning, a claim's note, the night, the
morning) come from the message catalogue (``werewolf.table.*``) in the reader's ``locale``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gm_engine.dice.result import Locale
from gm_engine.messages.catalogue import DEFAULT_LOCALE, Message, render
from gm_engine.messages.texts import (
    TableChooseVote,
    TableClaim,
    TableClaimWithResult,
    TableDeclined,
    TableDiscussionStarted,
    TableGameStarted,
    TableMorningQuiet,
    TableMorningVictim,
    TableNight,
    TableNoExecution,
    TablePass,
    TablePreDivinationDone,
    TablePreDivinationYours,
    TableRequest,
    TableRequestWords,
    TableResult,
    TableRunoff,
    TableVotingOpened,
)
from gm_engine.werewolf.log import (
    ClaimMade,
    ClaimRequested,
    Declined,
    DiscussionStarted,
    Executed,
    GameEnded,
    GameStarted,
    MorningReport,
    NightStarted,
    NoExecution,
    PreDivinationDone,
    PublicEntry,
    ResultStated,
    Speech,
    VoteTally,
    VotingOpened,
)
from gm_engine.werewolf.records import Role
from gm_engine.werewolf.views import PlayerView, PublicView

#: 「占い師が事前占いを完了しました」 (in Japanese; :func:`entry_lines` says it in the reader's locale).
PRE_DIVINATION_DONE = render(TablePreDivinationDone(), DEFAULT_LOCALE)

CUES_AFTER_EXECUTION = "【CMD_夜開始】【CMD_占い】【CMD_襲撃】【CMD_護衛】【CMD_霊媒】"

#: CMD_投票: 「投票後、【CMD_処刑】と表示」, after every tally (one that goes to the 決選投票 or
#: ends without execution too: CMD_処刑 is what decides that nobody leaves).
CUE_EXECUTION = "【CMD_処刑】"


def _names(names: Sequence[str], seats: Iterable[int]) -> str:
    listed = [names[s] for s in seats]
    return "、".join(listed) if listed else "なし"


def vote_result_lines(tally: VoteTally, names: Sequence[str]) -> list[str]:
    """【投票結果】 and 【投票集計】 of one round."""
    title = "【投票結果】(決選投票)" if tally.runoff else "【投票結果】"
    lines = [title]
    # 参加者名 → 投票先(投票理由); a vote given without a reason shows none, never words
    # the voter did not say
    lines += [
        f"{names[v.voter]} → {names[v.target]}({v.reason})"
        if v.reason
        else f"{names[v.voter]} → {names[v.target]}"
        for v in tally.votes
    ]
    lines.append("【投票集計】")
    lines += [f"{names[seat]}：{count}票" for seat, count in tally.counts]
    return lines


def executed_line(seat: int, names: Sequence[str]) -> str:
    """【〇〇が退席しました】."""
    return f"【{names[seat]}が退席しました】"


def public_info_lines(view: PublicView) -> list[str]:
    """【公開情報】: 追放者, 襲撃死者, stated 占い結果 and 霊媒結果, CO状況."""
    names = [""] + [seat.name for seat in view.seats]
    executed = "、".join(f"{names[s]}({d}日目)" for d, s in view.executed) or "なし"
    victims = "、".join(f"{names[s]}({d}日目朝)" for d, s in view.victims) or "なし"

    def results(role: Role) -> str:
        stated = [r for r in view.stated_results if r.role is role]
        if not stated:
            return "なし"
        return "、".join(f"{names[r.speaker]}→{names[r.target]}:{r.colour.label}" for r in stated)

    claims = [f"{seat.name}:{seat.claim.label}CO" for seat in view.seats if seat.claim is not None]
    return [
        "【公開情報】",
        f"追放者：{executed}",
        f"襲撃死者：{victims}",
        f"占い結果：{results(Role.SEER)}",
        f"霊媒結果：{results(Role.MEDIUM)}",
        f"CO状況：{'、'.join(claims) if claims else 'なし'}",
    ]


def game_end_lines(end: GameEnded, names: Sequence[str]) -> list[str]:
    """【ゲーム終了】 with 勝利陣営, 生存者, 死亡者 and 最終役職一覧."""
    roles = "、".join(f"{names[s]}:{r.label}" for s, r in end.roles)
    return [
        "【ゲーム終了】",
        f"勝利陣営：{end.winner.value}",
        f"生存者：{_names(names, end.survivors)}",
        f"死亡者：{_names(names, end.dead)}",
        f"最終役職一覧：{roles}",
    ]


def entry_lines(entry: PublicEntry, view: PublicView, locale: Locale = DEFAULT_LOCALE) -> list[str]:
    """The text of one public log entry, with the cue of what comes next where the document
    gives one; its sentences in ``locale``, its records in the document's format."""
    names = [""] + [seat.name for seat in view.seats]

    def say(message: Message) -> str:
        return render(message, locale)

    if isinstance(entry, GameStarted):
        return [say(TableGameStarted()), "【CMD_事前占い】"]
    if isinstance(entry, PreDivinationDone):
        return [say(TablePreDivinationDone())]
    if isinstance(entry, DiscussionStarted):
        return [say(TableDiscussionStarted(entry.day)), "【CMD_議論】"]
    if isinstance(entry, Speech):
        speaker = names[entry.speaker]
        return [f"{speaker}「{entry.text}」" if entry.text else say(TablePass(speaker))]
    if isinstance(entry, ClaimMade):
        speaker, role = names[entry.speaker], entry.role.label
        if entry.target is not None and entry.colour is not None:
            line = say(TableClaimWithResult(speaker, role, names[entry.target], entry.colour.label))
        else:
            line = say(TableClaim(speaker, role))
        return [*_said(speaker, entry.text), line]
    if isinstance(entry, ResultStated):
        # the line names its speaker: without words it is the only line of the statement
        speaker = names[entry.speaker]
        line = say(TableResult(speaker, entry.role.label, names[entry.target], entry.colour.label))
        return [*_said(speaker, entry.text), line]
    if isinstance(entry, ClaimRequested):
        said = entry.text or say(TableRequestWords(entry.role.label))
        return [f"{names[entry.speaker]}「{said}」", say(TableRequest(entry.role.label))]
    if isinstance(entry, Declined):
        speaker = names[entry.speaker]
        return [f"{speaker}「{entry.text}」" if entry.text else say(TableDeclined(speaker))]
    if isinstance(entry, VotingOpened):
        if entry.runoff:
            return [say(TableRunoff(_names(names, entry.candidates))), say(TableChooseVote())]
        return [say(TableVotingOpened()), "【CMD_投票】"]
    if isinstance(entry, VoteTally):
        lines = [*vote_result_lines(entry, names), CUE_EXECUTION]
        if entry.outcome == "no_execution":
            lines.append(say(TableNoExecution()))
        return lines
    if isinstance(entry, Executed):
        return [executed_line(entry.seat, names), "【CMD_勝敗判定】"]
    if isinstance(entry, NoExecution):
        return ["【CMD_勝敗判定】"]
    if isinstance(entry, NightStarted):
        return [CUES_AFTER_EXECUTION, say(TableNight())]
    if isinstance(entry, MorningReport):
        head = "【CMD_朝処理】【CMD_勝敗判定】"
        if entry.victim is None:
            return [head, say(TableMorningQuiet(entry.day))]
        return [head, say(TableMorningVictim(entry.day, names[entry.victim]))]
    return game_end_lines(entry, names)


def _said(speaker: str, text: str) -> list[str]:
    """The speech line of a claim or a statement: none when it came without words."""
    return [f"{speaker}「{text}」"] if text else []


def render_entries(
    entries: Iterable[PublicEntry], view: PlayerView | PublicView, locale: Locale = DEFAULT_LOCALE
) -> list[str]:
    """The lines for ``entries`` as the owner of ``view`` sees them (sentences in ``locale``).

    With a seat's :class:`PlayerView`, the seat's own private facts that the document says to
    tell it at that moment take their place: the 占い師 is told its 事前占い result instead of
    「占い師が事前占いを完了しました」, which CMD_事前占い outputs only when {{user}} is not the
    占い師. A morning is followed by 【公開情報】.
    """
    public = view.public if isinstance(view, PlayerView) else view
    lines: list[str] = []
    for entry in entries:
        if isinstance(entry, PreDivinationDone) and isinstance(view, PlayerView):
            pre = [r for r in view.private.divine_results if r.pre]
            if pre:
                target = public.name(pre[0].target)
                lines.append(render(TablePreDivinationYours(target, pre[0].colour.label), locale))
                continue
        lines += entry_lines(entry, public, locale)
        if isinstance(entry, MorningReport):
            lines += public_info_lines(public)
    return lines


def private_lines(view: PlayerView) -> list[str]:
    """A seat's own facts: its role, a 人狼's partner, its own results."""
    private = view.private
    public = view.public
    if private.role is None:
        return ["役職はまだ決まっていません。"]
    lines = [f"あなたの役職：{private.role.label}"]
    if private.partners:
        lines.append(f"人狼の仲間：{'、'.join(public.name(p) for p in private.partners)}")
    for divine in private.divine_results:
        when = "事前占い" if divine.pre else f"{divine.day}日目朝"
        lines.append(f"占い結果({when})：{public.name(divine.target)}は{divine.colour.label}")
    for medium in private.medium_results:
        lines.append(
            f"霊媒結果({medium.executed_day}日目の処刑者)：{public.name(medium.target)}は{medium.colour.label}"
        )
    return lines
