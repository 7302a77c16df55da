"""The 9-player werewolf game of 人狼ゲーム各処理, as the project plays it (docs/werewolf.md).

A deterministic engine owns the roles, the records (PLAYER, PHASE, ATTACK / DIVINE / GUARD /
MEDIUM), the phase order, the votes, the night and the win check; no model can talk it out of
its rules or its secrets. Modules:

* :mod:`.records`: the document's records and numbers (int constants, Role, Stage, ...);
* :mod:`.interning`: one shared instance per value of the frozen entries and templates;
* :mod:`.actions`: the actions, frozen value objects (ChooseRole, Speak, Claim, StateResult,
  RequestClaim, Decline, Vote, Attack, Divine, Guard) and ``with_text``;
* :mod:`.options`: :class:`WerewolfOptions`, the rule options where tables differ;
* :mod:`.game`: :class:`Game`, the state and its API, and the exceptions;
* :mod:`.log`: the public and private log entries; :mod:`.views`: the views built from them;
* :mod:`.render`: the document's fixed texts; :mod:`.agents`: the offline players;
  :mod:`.simulate`: many offline games.

Driving a game (a session loop)
-------------------------------
::

    game = Game.new(SeededSource(seed))          # or Game.from_deal([3, 1, 1, 2, 2, 2, 4, 5, 6])
    while not game.is_over:
        seats = game.to_act()                    # who must act now
        if not seats:
            entries = game.advance()             # the next engine step; show render_entries(...)
            continue
        for seat in seats:                       # discussion: one seat; vote / night: several
            legal = game.legal_actions(seat)     # templates with empty text
            action = choose(seat, player_view(game, seat), legal)   # the human, a model or an agent
            game.apply(with_text(action, speech_or_reason))         # IllegalActionError if refused

* ``to_act()`` lists the seats that must act before ``advance()``. At the vote and at night
  the seats act independently and in any order (nobody sees this round's votes or tonight's
  choices of others: they are secret until the tally / the morning). ``advance()`` refuses
  while somebody still has to act, and after the end.
* Stages (``game.stage``) and what ``advance()`` does after each:
  ``choose_role`` (P1: ChooseRole) -> ``deal`` (advance: ゲーム開始, shuffle from the source)
  -> ``pre_divination`` (the 占い師: Divine) -> advance: 事前占い result to the seer, public
  「占い師が事前占いを完了しました」, day 1 ``discussion`` -> advance: ``vote`` -> advance:
  tally; a tie opens one ``runoff``; a second tie means no execution -> ``execution``
  (advance: 処刑 + 勝敗判定) -> ``night_start`` (advance: 夜開始) -> ``night`` (人狼 Attack,
  占い師 Divine, 狩人 Guard) -> advance: 霊媒, 朝結果, 勝敗判定, next day's ``discussion`` ...
  -> ``ended``.
* Discussion is structured in turns: each living seat gets ``options.discussion_rounds``
  turns per day, in seat order starting at P(day) (P1 on day 1, P2 on day 2, ...). A turn is
  ONE action: :class:`Speak` (free text, "" to pass), :class:`Claim` (CO, with a result for
  占い師 / 霊媒師), :class:`StateResult` (a claimed 占い師 / 霊媒師 states a further result),
  or :class:`RequestClaim` (CO要求). Every action carries a free ``text`` (what the seat says),
  stored in the public log. After a RequestClaim, every living seat that has not claimed
  answers once, in seat order after the requester (the requester last): Claim the requested
  role or :class:`Decline`. The real role holder may only come out, with its result (the
  事前占い result on day 1, the latest medium result after), which is what the club rule
  「必ず名乗り出ること」 means. Asking everyone keeps secret who could claim.
* Votes carry a ``reason``; the tally publishes all votes with reasons (【投票結果】) and the
  counts (【投票集計】).
* Text to show: :mod:`.render` turns public log entries and views into the document's fixed
  texts (【投票結果】, 【〇〇が退席しました】, 【公開情報】, 【ゲーム終了】, the 【CMD_…】 cues).
* Views: :func:`.views.player_view` (pydantic, for prompts and screens) and
  :func:`.views.observe` (the same information, cheap, for agents). A persona's prompt must be
  built from its own view only; the GM narrator uses P1's view.
* Offline players: :class:`.agents.OfflineAgent` ``choose(observation, legal) -> Action``
  returns a legal action with its speech / vote reason filled in (``talk=False``: same
  choices and dice, empty free talk). ``legal`` may be any sequence; agents read it only when
  they pick a claim or a result, so a caller may pass a lazy one (``simulate.LazyLegal``).
* ``apply()`` and ``advance()`` return the public log entries they added; a refused action
  raises :class:`IllegalActionError` (``.rule`` names the rule) and changes nothing.
  Legality is one rule: ``game.refusal(action)`` is ``None`` or the error ``apply`` would
  raise, and ``legal_actions`` lists exactly the actions it accepts.
* Observers (a screen, a referee, the session layer) read ``game.snapshot()``, a frozen
  :class:`PublicSnapshot` of the public state (day, stage, who is alive, whose turn, the vote
  candidates, the claims, the public log...); ``game.dealt_roles()`` is the referee's alone.
* The record numbers are plain int constants in :mod:`.records` (``SEER``, ``BLACK``,
  ``STAGE_VOTE``...); the enums built from them are what the API hands out.
* ``game.state_hash()`` is the SHA-256 of the canonical JSON of the whole state; the same seed
  and the same actions give the same hash.

Readings where NOTES.md is silent (each a documented choice; options in :class:`WerewolfOptions`)
-------------------------------------------------------------------------------------------------
* Claimable roles are 占い師, 狩人 and 霊媒師; a seat claims at most once per game.
* The 狂人 may claim like a 人狼 (``madman_claims``, NOTES.md's default) or not at all.
* A real 占い師 / 霊媒師 states only its own true results, each once (the club rule forbids it
  to 騙る). A fake 占い師 may state one result per day at most (as many as a real one could
  have: 事前占い + one per night), on any other seat; a fake 霊媒師 only about executed seats.
* CO要求: 「占い師は名乗り出ろ」 is allowed on day 1 only, 「霊媒師は名乗り出ろ」 on day 2+ only,
  each once a day; a fake answering must give a result exactly as the real one must.
* "No attack before the first execution" (NOTES.md) is read literally: a night attack needs
  an execution on some earlier day (``attack_needs_execution``; off = attack every night).
* When both 人狼 live, each proposes a victim; the human 人狼's choice wins, else the lower seat's.
  Both 人狼 learn the decided target and its result in the morning (private).
* The 霊媒 needs no choice: a 霊媒師 alive at night learns the colour of that day's executed
  seat (nothing on a day without execution), delivered in the morning. The 占い師 learns a
  night's divine in the morning too, even if attacked that night.
* Discussion length: ``discussion_rounds`` turns per living seat per day (default 2), one once
  ``one_round_at`` seats or fewer live at the day's start (default 6) and from day
  ``one_round_from`` on (default 3).
* A fake 占い師's result may name any other seat, living or dead; a fake 霊媒師's only a seat
  executed on an earlier day. Each seat states a given target at most once.
* The rules set no day limit: a table that ties every runoff while the 狩人 always saves the
  victim could play for ever (the offline agents' opinions drift daily, so they do not).
"""

from gm_engine.werewolf.actions import (
    Action,
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Guard,
    RequestClaim,
    Speak,
    StateResult,
    Vote,
    with_text,
)
from gm_engine.werewolf.game import (
    DealError,
    Game,
    GameOutcome,
    GameOverError,
    IllegalActionError,
    PublicSnapshot,
    SeatError,
    Stage,
    WerewolfError,
    check_composition,
)
from gm_engine.werewolf.options import ClaimResult, MadmanClaims, WerewolfOptions
from gm_engine.werewolf.records import COMPOSITION, PERSONA_NAMES, Colour, Role, Team
from gm_engine.werewolf.views import Observation, PlayerView, PrivateView, PublicView, observe, player_view

__all__ = [
    "COMPOSITION",
    "PERSONA_NAMES",
    "Action",
    "Attack",
    "ChooseRole",
    "Claim",
    "ClaimResult",
    "Colour",
    "DealError",
    "Decline",
    "Divine",
    "Game",
    "GameOutcome",
    "GameOverError",
    "Guard",
    "IllegalActionError",
    "MadmanClaims",
    "Observation",
    "PlayerView",
    "PrivateView",
    "PublicSnapshot",
    "PublicView",
    "RequestClaim",
    "Role",
    "SeatError",
    "Speak",
    "Stage",
    "StateResult",
    "Team",
    "Vote",
    "WerewolfError",
    "WerewolfOptions",
    "check_composition",
    "observe",
    "player_view",
    "with_text",
]
