"""The werewolf game: state, legality, engine steps and the win check.

A :class:`Game` is driven in the python-chess style (see the package docstring for the loop):
:meth:`Game.to_act` names who must act now, :meth:`Game.legal_actions` lists what a seat may do,
:meth:`Game.apply` plays one action and :meth:`Game.advance` runs the next engine step once
nobody has to act. :meth:`Game.outcome` is ``None`` until the game ends. Observers read
:meth:`Game.snapshot`, a frozen :class:`PublicSnapshot` of what everyone at the table knows.

Legality is one rule, :meth:`Game.refusal`: ``None`` for a legal action, else the
:class:`IllegalActionError` naming the clause it breaks. :meth:`Game.apply` raises that error,
:meth:`Game.is_legal` tests it and :meth:`Game.legal_actions` offers exactly the actions it
accepts (the candidates of the stage, filtered by the same clauses), so a rule and its refusal
are one line of code and the menu cannot disagree with the referee.

Exceptions (all subclass :class:`ValueError`):

* :class:`IllegalActionError`: an action or step the rules forbid now; ``rule`` names the rule.
* :class:`GameOverError`: any game action after 【ゲーム終了】 (a kind of IllegalActionError).
* :class:`DealError`: a fixed deal that is not nine role numbers forming the composition
  [1,1,2,2,2,3,4,5,6] (a string, floats, bools, the wrong length or the wrong roles).
* :class:`SeatError`: a seat argument that is not an int 1..9 (a bool is not a seat).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import compress, filterfalse
from operator import itemgetter
from typing import Any, NamedTuple

from gm_engine.dice.source import DiceSource
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
)
from gm_engine.werewolf.interning import interned, shared_get
from gm_engine.werewolf.log import (
    ActionTaken,
    AttackResolved,
    CastVote,
    ClaimMade,
    ClaimRequested,
    Declined,
    DiscussionStarted,
    DivineResult,
    Executed,
    GameEnded,
    GameStarted,
    GuardResolved,
    MediumResult,
    MorningReport,
    NightStarted,
    NoExecution,
    PreDivinationDone,
    PrivateEntry,
    PublicEntry,
    ResultStated,
    RoleDealt,
    Speech,
    VoteTally,
    VotingOpened,
)
from gm_engine.werewolf.options import ClaimResult, MadmanClaims, WerewolfOptions
from gm_engine.werewolf.records import (
    ABILITY_ATTACK,
    ABILITY_DIVINE,
    ABILITY_GUARD,
    ABILITY_MEDIUM,
    ALIVE,
    BODYGUARD,
    CLAIMABLE_ROLES,
    COLOURS,
    COMPOSITION,
    DAY,
    DEAD,
    FAILURE,
    HUMAN_SEAT,
    MADMAN,
    MEDIUM,
    NIGHT,
    PERSONA_NAMES,
    ROLES,
    SEATS,
    SEER,
    STAGE_CHOOSE_ROLE,
    STAGE_DEAL,
    STAGE_DISCUSSION,
    STAGE_ENDED,
    STAGE_EXECUTION,
    STAGE_NIGHT,
    STAGE_NIGHT_START,
    STAGE_PRE_DIVINATION,
    STAGE_RUNOFF,
    STAGE_VOTE,
    STAGES,
    STEP_BEFORE_START,
    STEP_DISCUSSION,
    STEP_ENDED,
    STEP_EXECUTION,
    STEP_MORNING,
    STEP_NIGHT_ACTIONS,
    STEP_VOTE,
    STEPS,
    SUCCESS,
    TIMES,
    UNPROCESSED,
    VILLAGER,
    WEREWOLF,
    AbilityRecord,
    Colour,
    PhaseRecord,
    PlayerRecord,
    Role,
    Stage,
    Step,
    Team,
    TimeOfDay,
)

__all__ = [
    "DealError",
    "Game",
    "GameOutcome",
    "GameOverError",
    "IllegalActionError",
    "PublicSnapshot",
    "SeatError",
    "Stage",
    "WerewolfError",
    "check_composition",
    "checked_seat",
    "deal_roles",
]

DEFAULT_HUMAN_NAME = "あなた"


class WerewolfError(ValueError):
    """Base class of the werewolf engine's errors."""


class IllegalActionError(WerewolfError):
    """An action or engine step the rules do not allow now. The state is unchanged.

    ``rule`` names the rule broken (the document's clause where there is one); ``detail`` says
    what in the action broke it.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [{rule}]")
        self.rule = rule
        self.detail = message


class GameOverError(IllegalActionError):
    """Anything after 【ゲーム終了】: ゲーム終了後は投票/処刑/襲撃/占い/護衛/霊媒 等の実行禁止."""


class DealError(WerewolfError):
    """A fixed deal that is not nine roles of the composition [1,1,2,2,2,3,4,5,6]."""


class SeatError(WerewolfError):
    """A seat argument that is not a seat: seats are the ints 1..9, and a bool is not one
    (``True == 1`` and a negative index would otherwise reach a real seat)."""


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """The end of a game: the winning team and the day it ended."""

    winner: Team
    day: int


class PublicSnapshot(NamedTuple):
    """What everyone at the table knows now, as one frozen value (no secret is in it).

    :meth:`Game.snapshot` hands out the same instance until the public state changes, so an
    observer may keep it; the fields are tuples, enums and ints. Indexes by seat have an
    unused index 0 (``alive[3]`` is P3).
    """

    names: tuple[str, ...]
    """names[seat]: the display names (index 0 unused)."""
    day: int
    time: TimeOfDay
    step: Step
    stage: Stage
    alive: tuple[bool, ...]
    """alive[seat]: deaths are announced, so this is public (index 0 unused)."""
    current_speaker: int | None
    """The seat whose discussion turn (or CO要求 answer) it is, during the discussion."""
    awaiting_claim: Role | None
    """The role of the CO要求 being answered now, if any."""
    candidates: tuple[int, ...]
    """Who may be voted for in the vote (or 決選投票) in progress, and the top seat at the
    execution; empty otherwise."""
    public_log: tuple[PublicEntry, ...]
    claims: tuple[tuple[int, Role], ...]
    """(seat, claimed role) of every claim (CO) so far, in the order they were made."""
    executions: tuple[tuple[int, int], ...]
    """(day, seat) of each execution (追放者)."""
    victims: tuple[tuple[int, int], ...]
    """(day, seat) of each attack victim (襲撃死者), by the morning they were found."""
    winner: Team | None


# Rule names, as the document words them where it does.
RULE_AFTER_END = "CMD_勝敗判定: ゲーム終了後は投票/処刑/襲撃/占い/護衛/霊媒 等のゲーム処理の実行禁止"
RULE_ROLE_CHOICE = "CMD_役職選択: P1の役職番号を変更、再選択、再抽選してはならない"
RULE_PHASE = "フェーズ順序: 役職選択→ゲーム開始→事前占い→議論→投票→処刑→勝敗判定→夜開始→夜能力→朝結果"
RULE_DEAD_ACT = (
    "死亡している参加者は行動できない (死亡者は新たにCOできない / 死亡している能力者は能力を使用できない)"
)
RULE_TURN = "CMD_議論: 発言・CO・CO要求は自分の手番に一つ"
RULE_CO_VILLAGER = "CMD_CO 部活内ルール: 村人が占い師などを騙る→禁止"
RULE_CO_OTHER_ROLE = "CMD_CO 部活内ルール: 占い師・狩人などの役職者が別役職を騙る→禁止"
RULE_CO_MADMAN = "CMD_CO 部活内ルール (狂人オプション madman_claims=none): 狂人はCOできない"
RULE_CO_ONCE = "CMD_CO: COは一人一回 (CO状況は公開情報として確定する)"
RULE_CO_ROLE = "CMD_CO: COできる役職は占い師・狩人・霊媒師"
RULE_CO_RESULT = "CMD_CO要求: 名乗り出る際は事前占いの結果/霊媒結果を発言する; 結果は自分の能力で得たもの"
RULE_CO_REQUEST = "CMD_CO要求: 初日は「占い師は名乗り出ろ」、2日目以降は「霊媒師は名乗り出ろ」"
RULE_CO_FORCED = "CMD_CO要求: 真占い師・真霊媒師は必ず名乗り出ること"
RULE_CO_RESTATE = (
    "CMD_CO要求: 占い師/霊媒師が名乗り出る際は結果を発言すること"
    " (結果なしで名乗り出た者は、CO要求で結果を発言する)"
)
RULE_RESULT = "結果の公開: 占い/霊媒結果を発言できるのは占い師/霊媒師COをした本人のみ"
RULE_VOTE = "CMD_投票: 自分自身や、死亡者への投票は無効; 無投票は禁止"
RULE_VOTE_ONCE = "CMD_投票: 一人一票"
RULE_RUNOFF = "CMD_投票: 決選投票では同票の参加者のみに投票できる"
RULE_ATTACK_WOLF = "CMD_襲撃: 人狼は人狼自身を襲撃対象にできない"
RULE_ATTACK_DEAD = (
    "CMD_襲撃: 襲撃対象は生存者から1名のみ; 襲撃対象が死亡している場合、襲撃を実行してはならない"
)
RULE_ATTACK_FIRST = "NOTES.md: 最初の処刑より前に襲撃はない (option attack_needs_execution)"
RULE_DIVINE = "CMD_占い: 生存している占い師が、自分以外の生存者から1名を選ぶ; 一夜に一回"
RULE_GUARD = "CMD_護衛: 狩人は自分自身を護衛できない; 護衛対象は生存者から1名; 一夜に一回"
RULE_ROLE_ABILITY = "夜に行動可能な役職: 人狼＝襲撃 占い師＝占い 狩人＝護衛"
RULE_PENDING = "フェーズ完了: 全員の行動が揃うまで次の処理へ進めない"
RULE_TEXT = "発言・投票理由は文字列で、長さの上限以内"
RULE_SEAT = "参加者はP1～P9"
RULE_FORM = "アクションの形式"
RULE_DEAL = "CMD_ゲーム開始 ②配布確認: 人狼2人、村人3人、占い師1人、狩人1人、霊媒師1人、狂人1人、合計9人"


_DISCUSSION_KINDS: tuple[type[Action], ...] = (Speak, Decline, Claim, StateResult, RequestClaim)
_NIGHT_KINDS: tuple[type[Action], ...] = (Attack, Divine, Guard)
# What each stage lets anybody do, in the order legal_actions lists them: the phase clause of
# the rule (a kind outside its stage's entry is refused with RULE_PHASE) and the enumeration
# read the same table.
_ACTING_STAGES: dict[int, tuple[type[Action], ...]] = {
    STAGE_CHOOSE_ROLE: (ChooseRole,),
    STAGE_PRE_DIVINATION: (Divine,),
    STAGE_DISCUSSION: _DISCUSSION_KINDS,
    STAGE_VOTE: (Vote,),
    STAGE_RUNOFF: (Vote,),
    STAGE_NIGHT: _NIGHT_KINDS,
}
_KINDS_OF_STAGE: tuple[tuple[type[Action], ...], ...] = tuple(
    _ACTING_STAGES.get(number, ()) for number in range(len(STAGES))
)
_TEXT_KINDS = frozenset(_DISCUSSION_KINDS)
_TARGET_KINDS = frozenset((Vote, Attack, Divine, Guard, StateResult))
_ROLE_KINDS = frozenset((ChooseRole, Claim, RequestClaim))
_ACTION_TYPES = frozenset((ChooseRole, Vote, *_DISCUSSION_KINDS, *_NIGHT_KINDS))
_RESULT_COLOURS: tuple[Colour, ...] = (Colour.WHITE, Colour.BLACK)
_ROLE_NUMBERS = tuple(sorted(ROLES))

# The templates legal_actions hands out: built once, so enumerating allocates nothing.
_SPEAKS: tuple[Action, ...] = tuple(Speak(s) for s in range(10))
_DECLINES: tuple[Action, ...] = tuple(Decline(s) for s in range(10))
_TARGETED: dict[type[Action], tuple[tuple[Action, ...], ...]] = {
    kind: tuple(tuple(kind(s, t) for t in range(10)) for s in range(10))
    for kind in (Vote, Attack, Divine, Guard)
}
_CHOOSE_ROLES: tuple[Action, ...] = tuple(ChooseRole(HUMAN_SEAT, ROLES[r]) for r in _ROLE_NUMBERS)
_REQUESTS: tuple[dict[int, Action], ...] = tuple(
    {r: RequestClaim(s, ROLES[r]) for r in _ROLE_NUMBERS} for s in range(10)
)

_DEFAULT_OPTIONS = WerewolfOptions()  # frozen, so every game may share it

_Refused = tuple[str, str, tuple[object, ...]]
"""A clause's refusal: its rule, a ``str.format`` template of the detail and its arguments."""
_ANSWER_FIRST: _Refused = (RULE_CO_FORCED, "answer the CO要求 first: come out or decline", ())


def _error(refused: _Refused) -> IllegalActionError:
    """The exception of a refusal (its text is formatted only now, when it is raised or shown)."""
    rule, template, arguments = refused
    kind = GameOverError if rule is RULE_AFTER_END else IllegalActionError
    return kind(rule, template.format(*arguments) if arguments else template)


def checked_seat(seat: object) -> int:
    """``seat`` if it is an int 1..9 (not a bool), else :class:`SeatError`."""
    if type(seat) is int and 0 < seat < 10:
        return seat
    if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= 9:
        return int(seat)  # an int subclass such as an IntEnum
    raise SeatError(f"{RULE_SEAT}: 席は1～9の整数で指定してください (受け取った値: {seat!r})")


def _is_int(value: object) -> bool:
    """An int that is not a bool (``True == 1`` must not pass for a seat or a role)."""
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def check_composition(roles: Sequence[int]) -> None:
    """Raise :class:`DealError` unless ``roles`` is the composition [1,1,2,2,2,3,4,5,6] (any order):
    a sequence (not a string) of nine ints 1..6 (not bools, not floats)."""
    deal_roles(roles)


def deal_roles(roles: object) -> list[Role]:
    """The nine roles of a fixed deal (P1's first), checked; :class:`DealError` says what is wrong."""
    if isinstance(roles, (str, bytes, bytearray)) or not isinstance(roles, Sequence):
        raise DealError(
            f"{RULE_DEAL}: 配役は役職番号 (整数1～6) 9個の並びで指定してください "
            f"({type(roles).__name__}は使えません: {roles!r})"
        )
    if len(roles) != len(COMPOSITION):
        raise DealError(
            f"{RULE_DEAL}: 役職番号は{len(COMPOSITION)}個必要です ({len(roles)}個ありました: {list(roles)!r})"
        )
    dealt: list[Role] = []
    for seat, number in zip(SEATS, roles, strict=True):
        if not _is_int(number):
            raise DealError(f"{RULE_DEAL}: P{seat}の役職番号が整数ではありません: {number!r}")
        if number not in ROLES:
            raise DealError(f"{RULE_DEAL}: P{seat}の役職番号{number!r}は1～6ではありません")
        dealt.append(ROLES[number])
    if sorted(dealt) != sorted(COMPOSITION):
        raise DealError(f"{RULE_DEAL}: 役職の構成が違います: {[int(r) for r in dealt]!r}")
    return dealt


class Game:
    """One game of 人狼 for nine seats (P1 the human, P2..P9 the personas).

    Construct with :meth:`new` (P1 chooses, then the engine shuffles) or :meth:`from_deal`
    (a fixed deal, for scenarios and tests). See the package docstring for the driving loop.
    """

    __slots__ = (
        "_alive",
        "_attack_proposals",
        "_attack_tonight",
        "_candidates",
        "_claim_list",
        "_divine_results",
        "_executed_today",
        "_legal_cache",
        "_living",
        "_medium_results",
        "_public_fields",
        "_requested_today",
        "_response_role",
        "_responses",
        "_snapshot",
        "_speaker",
        "_stage",
        "_stated",
        "_text_limit",
        "_turn_index",
        "_turns",
        "_version",
        "_votes",
        "claims",
        "executions",
        "name_table",
        "names",
        "options",
        "phase",
        "players",
        "private_logs",
        "public_log",
        "records",
        "source",
        "victims",
        "winner",
    )

    def __init__(
        self,
        source: DiceSource | None = None,
        options: WerewolfOptions | None = None,
        human_name: str = DEFAULT_HUMAN_NAME,
    ) -> None:
        """A game before 役職選択. ``source`` deals the roles; it is required by :meth:`new`."""
        self.options = options if options is not None else _DEFAULT_OPTIONS
        self._text_limit = self.options.max_text_length  # read on every action: a plain int
        self.source = source
        self.names: dict[int, str] = {HUMAN_SEAT: human_name, **PERSONA_NAMES}
        self.name_table: tuple[str, ...] = ("", *(self.names[s] for s in SEATS))
        self.players: list[PlayerRecord] = [PlayerRecord() for _ in range(10)]  # index 0 unused
        self.phase = PhaseRecord()
        self._stage = STAGE_CHOOSE_ROLE
        self.records: dict[int, AbilityRecord] = {}
        self.public_log: list[PublicEntry] = []
        self.private_logs: dict[int, list[PrivateEntry]] = {seat: [] for seat in SEATS}
        self.claims: dict[int, Role] = {}
        # tuples, rebuilt on the rare change, so the snapshot shares them
        self.executions: tuple[tuple[int, int], ...] = ()
        self.victims: tuple[tuple[int, int], ...] = ()
        self.winner: Team | None = None
        self._attack_proposals: dict[int, int] = {}
        self._attack_tonight = False
        self._votes: dict[int, Vote] = {}
        self._candidates: tuple[int, ...] = ()
        self._turns: list[int] = []
        self._turn_index = 0
        self._responses: list[int] = []
        self._response_role: Role | None = None
        self._requested_today: list[Role] = []
        self._stated: dict[int, list[int]] = {}
        self._divine_results: list[tuple[int, int, Colour]] = []  # (day learned, target, colour)
        self._medium_results: list[tuple[int, int, Colour]] = []  # (executed day, target, colour)
        self._executed_today: int | None = None
        self._speaker: int | None = None
        self._version = 0
        self._legal_cache: dict[int, tuple[int, tuple[Action, ...]]] = {}
        self._alive: tuple[bool, ...] = (False,) * 10
        self._living: tuple[int, ...] = ()  # the living seats once dealt (from _alive)
        self._claim_list: tuple[tuple[int, Role], ...] = ()  # the claims in order, for the snapshot
        self._snapshot: PublicSnapshot | None = None  # both kept until the public state changes
        self._public_fields: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        source: DiceSource,
        options: WerewolfOptions | None = None,
        human_name: str = DEFAULT_HUMAN_NAME,
    ) -> Game:
        """A game waiting for P1's :class:`ChooseRole`; the deal will draw from ``source``."""
        return cls(source, options, human_name)

    @classmethod
    def from_deal(
        cls,
        deal: Sequence[int],
        options: WerewolfOptions | None = None,
        human_name: str = DEFAULT_HUMAN_NAME,
        source: DiceSource | None = None,
    ) -> Game:
        """A game dealt as ``deal`` (P1's role first, then P2..P9), standing at the 事前占い.

        Raises:
            DealError: the deal is not a sequence of nine ints 1..6 forming the composition
                [1,1,2,2,2,3,4,5,6] (strings, floats and bools are refused).
        """
        roles = deal_roles(deal)
        game = cls(source, options, human_name)
        game.apply(ChooseRole(HUMAN_SEAT, roles[0]))
        game._start(roles)
        return game

    # ------------------------------------------------------------------ queries

    @property
    def stage(self) -> Stage:
        """Where the game is (see :class:`Stage`)."""
        return STAGES[self._stage]

    def role_of(self, seat: int) -> Role:
        """PLAYER.R of ``seat`` (GM knowledge: never put this in a view).

        Raises:
            SeatError: ``seat`` is not an int 1..9.
            LookupError: the roles are not dealt yet.
        """
        number = self.players[checked_seat(seat)].R
        if number not in ROLES:
            raise LookupError(f"P{seat}の役職はまだ配られていません")
        return ROLES[number]

    def dealt_roles(self) -> tuple[Role, ...] | None:
        """P1..P9's roles as dealt, or ``None`` before the deal (GM knowledge: the referee's
        and the end screen's, never a player's view)."""
        if self._stage <= STAGE_DEAL:
            return None
        return tuple(ROLES[record.R] for record in self.players[1:])

    def is_alive(self, seat: int) -> bool:
        """PLAYER.L == 1.

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        return self.players[checked_seat(seat)].L == ALIVE

    def alive_flags(self) -> tuple[bool, ...]:
        """``flags[seat]`` is True for a living seat (index 0 unused). Public: deaths are announced."""
        return self._alive

    def _refresh_alive(self) -> None:
        self._alive = alive = (False, *[record.L == ALIVE for record in self.players[1:]])
        self._living = tuple(compress(SEATS, alive[1:]))

    def living(self) -> list[int]:
        """The living seats, in seat order."""
        return list(self._living) if self._stage > STAGE_DEAL else list(SEATS)

    @property
    def is_over(self) -> bool:
        """True after 【ゲーム終了】."""
        return self._stage == STAGE_ENDED

    def outcome(self) -> GameOutcome | None:
        """The winner once the game has ended, else ``None``."""
        if self.winner is None:
            return None
        return GameOutcome(self.winner, self.phase.day)

    def current_speaker(self) -> int | None:
        """The seat whose discussion turn (or CO要求 answer) it is, or ``None``."""
        return self._speaker if self._stage == STAGE_DISCUSSION else None

    def _find_speaker(self) -> None:
        """Recompute the speaker after the discussion's turns or answers changed."""
        self._speaker = None
        if self._responses:
            self._speaker = self._responses[0]
            return
        while self._turn_index < len(self._turns):
            seat = self._turns[self._turn_index]
            if self.players[seat].L == ALIVE:
                self._speaker = seat
                return
            self._turn_index += 1  # a seat that died since the order was made is skipped

    def public_candidates(self) -> tuple[int, ...]:
        """Who may be voted for in the vote in progress (public once the vote opens)."""
        return self._candidates

    @property
    def awaiting_claim(self) -> Role | None:
        """The role of the CO要求 being answered, or ``None``."""
        return self._response_role if self._responses else None

    def turns_left(self, seat: int) -> int:
        """The discussion turns ``seat`` still has today: the current one if it is the seat's
        (a CO要求 answer is none), and those to come (0 outside a discussion)."""
        if self._stage != STAGE_DISCUSSION:
            return 0
        return self._turns[self._turn_index :].count(seat)

    def answer_takes_turn(self, seat: int) -> bool:
        """Whether ``seat``'s answer to the CO要求 being answered now takes its next discussion
        turn of the day (the option ``answer_takes_turn``; never the caller's own answer)."""
        return (
            bool(self._responses)
            and self.options.answer_takes_turn
            and seat != self._caller()
            and self.turns_left(seat) > 0
        )

    def snapshot(self) -> PublicSnapshot:
        """What everyone at the table knows now (see :class:`PublicSnapshot`).

        The same frozen instance is returned until the public state changes (a vote or a
        night choice is secret, so it changes nothing here).
        """
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._snapshot = _new_tuple(PublicSnapshot, self.public_fields())
        return snapshot

    def public_fields(self) -> tuple[Any, ...]:
        """The fields of :meth:`snapshot` as a plain tuple, in :class:`PublicSnapshot`'s order.

        For observers that copy them into a value of their own (``views.observe`` builds one
        observation per decision): the same values, without building the snapshot object.
        The tuple is shared until the public state changes.
        """
        fields = self._public_fields
        if fields is None:
            phase = self.phase
            stage = self._stage
            discussing = stage == STAGE_DISCUSSION
            fields = self._public_fields = (
                self.name_table,
                phase.day,
                TIMES[phase.T],
                STEPS[phase.P],
                STAGES[stage],
                self._alive,
                self._speaker if discussing else None,
                self._response_role if discussing and self._responses else None,
                self._candidates if stage in (STAGE_VOTE, STAGE_RUNOFF, STAGE_EXECUTION) else (),
                tuple(self.public_log),
                self._claim_list,
                self.executions,
                self.victims,
                self.winner,
            )
        return fields

    def public_log_snapshot(self) -> tuple[PublicEntry, ...]:
        """The public log as a tuple (``snapshot().public_log``)."""
        return self.snapshot().public_log

    def to_act(self) -> list[int]:
        """The seats that must act before :meth:`advance` (empty: call advance, or the game is over).

        At the vote and at night several seats act independently, in any order.
        """
        stage = self._stage
        if stage == STAGE_DISCUSSION:
            return [] if self._speaker is None else [self._speaker]
        if stage in (STAGE_VOTE, STAGE_RUNOFF):
            # every living seat votes; nobody dies during a vote
            return list(filterfalse(self._votes.__contains__, self._living))
        if stage == STAGE_NIGHT:
            pending = []
            players = self.players
            records = self.records
            for s in self._living:
                role = players[s].R
                if role == WEREWOLF:
                    if self._attack_tonight and s not in self._attack_proposals:
                        pending.append(s)
                elif role == SEER:
                    if ABILITY_DIVINE not in records:
                        pending.append(s)
                elif role == BODYGUARD and ABILITY_GUARD not in records:
                    pending.append(s)
            return pending
        if stage == STAGE_CHOOSE_ROLE:
            return [HUMAN_SEAT]
        if stage == STAGE_PRE_DIVINATION:
            seer = self._seat_of(SEER)
            return [seer] if ABILITY_DIVINE not in self.records else []
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, with empty text (fill it in with ``with_text``):
        exactly the actions :meth:`refusal` accepts, in menu order.

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        return list(self._legal(checked_seat(seat)))

    def legal_tuple(self, seat: int) -> tuple[Action, ...]:
        """:meth:`legal_actions` as a tuple, cached until the state changes (do not keep it).

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        if type(seat) is not int or not 0 < seat < 10:
            seat = checked_seat(seat)
        return self._legal(seat)

    def is_legal(self, action: object) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        return self._refused(action) is None

    # ------------------------------------------------------------------ legality: the rule

    def refusal(self, action: object) -> IllegalActionError | None:
        """``None`` if ``action`` is legal now, else the error :meth:`apply` raises for it.

        This is the game's one legality rule: ``apply`` raises what it returns, ``is_legal``
        tests it and ``legal_actions`` lists exactly the actions it accepts. The clauses run in
        a fixed order (the form of the action: field types, text, seat numbers; then the rules
        of the stage), and the first that fails names its rule; anything may be passed.
        """
        refused = self._refused(action)
        return None if refused is None else _error(refused)

    def _refused(self, action: object) -> _Refused | None:
        """:meth:`refusal` as a plain (rule, message template, arguments) tuple: the clauses
        return these, so listing the legal actions builds no exception and formats no text."""
        if self._stage == STAGE_ENDED:
            return (RULE_AFTER_END, "the game is over", ())
        kind: Any = type(action)  # one of the action classes once the form is checked
        act: Any = action
        # The commonest actions skip the general form check when their fields have the exact
        # types (the form check accepts those, so only the speed differs).
        if kind is Speak:
            actor = act.actor
            text = act.text
            if not (
                type(actor) is int and 0 < actor < 10 and type(text) is str and len(text) <= self._text_limit
            ):
                refused = self._form_refusal(kind, act)
                if refused is not None:
                    return refused
            return self._actor_refusal(kind, actor)
        if kind is Vote:
            actor = act.actor
            target = act.target
            reason = act.reason
            if not (
                type(actor) is int
                and type(target) is int
                and 0 < actor < 10
                and 0 < target < 10
                and type(reason) is str
                and len(reason) <= self._text_limit
            ):
                refused = self._form_refusal(kind, act)
                if refused is not None:
                    return refused
            return self._actor_refusal(kind, actor) or self._target_refusal(kind, actor, target)
        if kind is Attack or kind is Divine or kind is Guard:
            actor = act.actor
            target = act.target
            if not (type(actor) is int and type(target) is int and 0 < actor < 10 and 0 < target < 10):
                refused = self._form_refusal(kind, act)
                if refused is not None:
                    return refused
            return self._actor_refusal(kind, actor) or self._target_refusal(kind, actor, target)
        refused = self._form_refusal(kind, act)
        if refused is not None:
            return refused
        actor = act.actor
        refused = self._actor_refusal(kind, actor)
        if refused is not None or kind is Decline or kind is ChooseRole:
            return refused
        if kind is Claim:
            return self._claim_refusal(actor, act.role) or self._claim_result_refusal(
                actor, act.role, act.target, act.colour
            )
        if kind is StateResult:
            forced = bool(self._responses)  # a re-asked claimant gives the result a claim would
            return self._result_refusal(actor, self.claims[actor], act.target, act.colour, forced)
        if kind is RequestClaim:
            return self._request_refusal(act.role)
        return self._target_refusal(kind, actor, act.target)

    def _form_refusal(self, kind: type, act: Any) -> _Refused | None:
        """The form of an action: one of the action classes, each field of its type (seats and
        roles are ints, not bools; colours 3 or 4), the text within the limit, seats 1..9."""
        if kind not in _ACTION_TYPES:
            return (RULE_FORM, "not a werewolf action: {!r}", (act,))
        actor = act.actor
        if type(actor) is not int and not _is_int(actor):
            return (RULE_FORM, "the actor must be a seat number: {!r}", (actor,))
        target: Any = None
        if kind in _TARGET_KINDS or kind is Claim:
            target = act.target
            if (target is not None or kind is not Claim) and type(target) is not int and not _is_int(target):
                return (RULE_FORM, "the target must be a seat number: {!r}", (target,))
            if kind is Claim or kind is StateResult:
                colour = act.colour
                if (colour is not None or kind is StateResult) and (
                    not _is_int(colour) or colour not in COLOURS
                ):
                    return (RULE_FORM, "a result colour is 3 (白) or 4 (黒), not {!r}", (colour,))
        if kind in _ROLE_KINDS:
            role = act.role
            if (type(role) is not Role and not _is_int(role)) or role not in ROLES:
                return (RULE_FORM, "not a role number 1..6: {!r}", (role,))
        if kind in _TEXT_KINDS or kind is Vote:
            text = act.reason if kind is Vote else act.text
            if not isinstance(text, str):
                return (RULE_TEXT, "the text must be a string, not {}", (type(text).__name__,))
            if len(text) > self.options.max_text_length:
                return (
                    RULE_TEXT,
                    "text must be a string of at most {} characters",
                    (self.options.max_text_length,),
                )
        if not 0 < actor < 10:
            return (RULE_SEAT, "no such seat: {!r}", (actor,))
        if target is not None and not 0 < target < 10:
            return (RULE_SEAT, "no such target seat: {!r}", (target,))
        return None

    def _actor_refusal(self, kind: type[Action], seat: int) -> _Refused | None:
        """The clauses that depend on who acts and what kind of action, not on its fields."""
        stage = self._stage
        # The commonest cases first: a discussion action in the discussion and a vote in a
        # vote (the clauses are the same as below, in the same order of precedence: a dead
        # seat is refused as dead before anything else, and the speaker is always alive).
        if stage == STAGE_DISCUSSION and kind in _TEXT_KINDS:
            if seat != self._speaker:
                if not self._alive[seat]:
                    return (RULE_DEAD_ACT, "P{} is dead", (seat,))
                if self._speaker is None:
                    return (RULE_TURN, "the discussion is over: every turn has been taken", ())
                return (RULE_TURN, "it is P{}'s turn, not P{}'s", (self._speaker, seat))
            if kind is Speak:
                return _ANSWER_FIRST if self._responses else None
            return self._discussion_refusal(kind, seat)
        if kind is Vote and stage in (STAGE_VOTE, STAGE_RUNOFF):
            if not self._alive[seat]:
                return (RULE_DEAD_ACT, "P{} is dead", (seat,))
            if seat in self._votes:
                return (RULE_VOTE_ONCE, "P{} has already voted", (seat,))
            return None
        if kind is ChooseRole:
            if stage != STAGE_CHOOSE_ROLE:
                return (RULE_ROLE_CHOICE, "P1's role is already fixed", ())
            if seat != HUMAN_SEAT:
                return (RULE_ROLE_CHOICE, "only P1 chooses a role", ())
            return None
        if stage <= STAGE_DEAL:
            return (RULE_PHASE, "{} before the roles are dealt", (kind.__name__,))
        if not self._alive[seat]:
            return (RULE_DEAD_ACT, "P{} is dead", (seat,))
        if kind not in _KINDS_OF_STAGE[stage]:
            now = STAGES[stage].value
            if kind in _TEXT_KINDS:
                return (RULE_PHASE, "{} only during the discussion (now: {})", (kind.__name__, now))
            if kind is Vote:
                return (RULE_PHASE, "no vote during {}", (now,))
            return (RULE_PHASE, "{} only at night (now: {})", (kind.__name__, now))
        role = self.players[seat].R
        if kind is Attack:
            if role != WEREWOLF:
                return (RULE_ROLE_ABILITY, "only a 人狼 attacks", ())
            if not self._attack_tonight:
                return (RULE_ATTACK_FIRST, "no attack tonight: nobody has been executed yet", ())
            if seat in self._attack_proposals:
                return (RULE_ATTACK_DEAD, "P{} has already chosen tonight's victim", (seat,))
            return None
        if kind is Divine:
            if role != SEER:
                return (RULE_ROLE_ABILITY, "only the 占い師 divines", ())
            if ABILITY_DIVINE in self.records:
                done = (
                    "the 事前占い is already done"
                    if stage == STAGE_PRE_DIVINATION
                    else "already divined tonight"
                )
                return (RULE_DIVINE, done, ())
            return None
        if role != BODYGUARD:
            return (RULE_ROLE_ABILITY, "only the 狩人 guards", ())
        if ABILITY_GUARD in self.records:
            return (RULE_GUARD, "already guarded tonight", ())
        return None

    def _discussion_refusal(self, kind: type[Action], seat: int) -> _Refused | None:
        """The clauses of the speaker's Decline, Claim, StateResult or RequestClaim that do not
        depend on its fields."""
        if kind is Claim:
            return None  # its clauses depend on the role claimed
        if kind is Decline:
            if not self._responses:
                return (RULE_CO_REQUEST, "nothing to decline: no CO要求 is being answered", ())
            if seat in self.claims:
                # only a claimant still owing its result is asked again (see _apply_discussion)
                return (RULE_CO_RESTATE, "P{} came out without a result: state it now", (seat,))
            if self._response_role == self.players[seat].R:
                return (RULE_CO_FORCED, "the real {0.label} must come out", (ROLES[self.players[seat].R],))
            return None
        if self._responses:
            if kind is StateResult and seat in self.claims:
                return None  # a re-asked claimant answers with its result
            return _ANSWER_FIRST
        if kind is StateResult and self.claims.get(seat, 0) not in (SEER, MEDIUM):
            return (RULE_RESULT, "only a claimed 占い師/霊媒師 states results", ())
        return None

    def _target_refusal(self, kind: type[Action], seat: int, target: int) -> _Refused | None:
        """The clauses on the target of a Vote, Attack, Divine or Guard (after the actor's)."""
        alive = self._alive
        if kind is Vote:
            if target == seat:
                return (RULE_VOTE, "no self-vote", ())
            if not alive[target]:
                return (RULE_VOTE, "P{} is dead", (target,))
            if target not in self._candidates:
                if self._stage == STAGE_RUNOFF:
                    return (RULE_RUNOFF, "P{} is not in the runoff {}", (target, list(self._candidates)))
                return (RULE_VOTE, "P{} is not a candidate", (target,))
            return None
        if kind is Attack:
            if not alive[target]:
                return (RULE_ATTACK_DEAD, "P{} is dead", (target,))
            if self.players[target].R == WEREWOLF:
                return (RULE_ATTACK_WOLF, "P{} is a 人狼", (target,))
            return None
        if kind is Divine:
            if target == seat:
                return (RULE_DIVINE, "the 占い師 divines another player", ())
            if not alive[target]:
                return (RULE_DIVINE, "P{} is dead", (target,))
        elif target == seat:
            return (RULE_GUARD, "the 狩人 never guards itself", ())
        elif not alive[target]:
            return (RULE_GUARD, "P{} is dead", (target,))
        return None

    def may_claim(self, seat: int, role: Role) -> bool:
        """The club rule (CMD_CO): may ``seat``'s real role claim ``role``?

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        return role in CLAIMABLE_ROLES and self._club_rule_refusal(checked_seat(seat), role) is None

    def _club_rule_refusal(self, seat: int, role: int) -> _Refused | None:
        """CMD_CO's club rules: who may claim ``role`` (one of the claimable roles)."""
        own = self.players[seat].R
        if own in (WEREWOLF, role):
            return None
        if own == MADMAN:
            if self.options.madman_claims is MadmanClaims.LIKE_WEREWOLF:
                return None
            return (RULE_CO_MADMAN, "the 狂人 may not claim under this table's options", ())
        if own == VILLAGER:
            return (RULE_CO_VILLAGER, "a 村人 may not claim a role", ())
        return (RULE_CO_OTHER_ROLE, "a {0.label} may claim only {0.label}", (ROLES[own],))

    def _claim_refusal(self, seat: int, role: int) -> _Refused | None:
        """The clauses of a Claim of ``role`` that do not depend on its result."""
        if role not in CLAIMABLE_ROLES:
            return (RULE_CO_ROLE, "cannot claim {0.label}", (ROLES[role],))
        if seat in self.claims:
            return (RULE_CO_ONCE, "P{} already claimed {.label}", (seat, self.claims[seat]))
        if self._responses and role != self._response_role:
            return (RULE_CO_REQUEST, "answer the CO要求 with the requested role or decline", ())
        return self._club_rule_refusal(seat, role)

    def _claim_result_refusal(
        self, seat: int, role: int, target: int | None, colour: int | None
    ) -> _Refused | None:
        """The clauses on the result a Claim carries (none, or ``target`` and ``colour``)."""
        forced = self._claim_states_result()
        if (target is None) != (colour is None):
            return (RULE_CO_RESULT, "a result names both its target and its colour", ())
        if role == BODYGUARD:
            return None if target is None else (RULE_CO_RESULT, "a 狩人 claim carries no result", ())
        if target is None or colour is None:
            if forced and self._result_due(role):
                return (RULE_CO_RESULT, "a {0.label} coming out states its result", (ROLES[role],))
            return None
        return self._result_refusal(seat, role, target, colour, forced)

    def _claim_states_result(self) -> bool:
        """Whether a claim now must carry the result a real claimant would give (and only
        that one): always an answer to a CO要求, and every claim under the document's reading
        (option ``claim_result``)."""
        return bool(self._responses) or self.options.claim_result is ClaimResult.ALWAYS

    def _result_due(self, role: int) -> bool:
        """Whether a real ``role`` claimant has a result to state by now: the 占い師 always
        (the 事前占い), the 霊媒師 once somebody was executed on an earlier day (a living
        霊媒師 was alive that night, so it has that result)."""
        if role == SEER:
            return True
        day = self.phase.day
        return role == MEDIUM and any(d < day for d, _ in self.executions)

    def _result_refusal(
        self, seat: int, role: int, target: int, colour: int, forced: bool
    ) -> _Refused | None:
        """May ``seat``, as a ``role`` claimant, state "``target`` is ``colour``" now?

        A real 占い師 / 霊媒師 states its own results, each once. A fake one may state what a
        real one could have by now: a 占い師 one target per day at most (事前占い + one per
        night), a 霊媒師 only the colours of executed players. ``forced`` (a CO要求 answer)
        narrows it to the one result a real claimant must give: the 事前占い result on day 1,
        the latest execution's colour after.
        """
        return self._results_refusal(seat, role) or self._result_target_refusal(
            seat, role, target, colour, forced
        )

    def _results_refusal(self, seat: int, role: int) -> _Refused | None:
        """The clauses of stating a result that do not depend on which result."""
        if role == self.players[seat].R:
            return None  # a real claimant: its own results, checked one by one
        if role == SEER:
            if len(self._stated.get(seat, ())) >= self.phase.day:
                return (RULE_CO_RESULT, "a 占い師 has at most one result a day to state", ())
            return None
        if role == MEDIUM:
            return None
        return (RULE_CO_RESULT, "a {0.label} claim carries no result", (ROLES[role],))

    def _result_target_refusal(
        self, seat: int, role: int, target: int, colour: int, forced: bool
    ) -> _Refused | None:
        """The clauses on the result itself (after :meth:`_results_refusal`)."""
        stated = self._stated.get(seat, ())
        if role == self.players[seat].R:
            own = self._divine_results if role == SEER else self._medium_results
            results = [(t, c) for _, t, c in own if t not in stated]
            if forced:
                results = results[-1:]
            if (target, colour) not in results:
                return (
                    RULE_CO_RESULT,
                    "P{}は{.label}: not a result of your own to state now",
                    (target, COLOURS[colour]),
                )
            return None
        if target in stated:
            return (RULE_CO_RESULT, "P{}'s result is already stated", (target,))
        if target == seat:
            return (RULE_CO_RESULT, "a result is about another player", ())
        if role == MEDIUM:
            day = self.phase.day
            executed = [t for d, t in self.executions if d < day]
            if forced:
                executed = executed[-1:]
            if target not in executed:
                return (RULE_CO_RESULT, "P{} was not executed (or not the latest executed)", (target,))
        return None

    def _request_refusal(self, role: int) -> _Refused | None:
        """CO要求: the day's role only (占い師 on day 1, 霊媒師 after), once a day."""
        wanted = SEER if self.phase.day == 1 else MEDIUM
        if role != wanted or role in self._requested_today:
            return (
                RULE_CO_REQUEST,
                "cannot request {.label} CO on day {} (or again)",
                (ROLES[role], self.phase.day),
            )
        return None

    # ------------------------------------------------------------------ legality: the menu

    def _legal(self, seat: int) -> tuple[Action, ...]:
        cached = self._legal_cache.get(seat)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        actions = tuple(self._enumerate(seat))
        self._legal_cache[seat] = (self._version, actions)
        return actions

    def _enumerate(self, seat: int) -> Iterator[Action]:
        """The candidates of the stage that the rule accepts, in menu order.

        The candidates are every well-formed action of the stage's kinds for ``seat`` (seats
        1..9, the result colours, the roles); the clauses of :meth:`refusal` that depend only
        on the actor are asked once per kind, the others once per candidate.
        """
        for kind in _KINDS_OF_STAGE[self._stage]:
            if self._actor_refusal(kind, seat) is not None:
                continue
            if kind is Speak:
                yield _SPEAKS[seat]
            elif kind is Decline:
                yield _DECLINES[seat]
            elif kind is ChooseRole:
                yield from _CHOOSE_ROLES
            elif kind is Claim:
                forced = self._claim_states_result()
                for role in CLAIMABLE_ROLES:
                    if self._claim_refusal(seat, role) is not None:
                        continue
                    if self._claim_result_refusal(seat, role, None, None) is None:
                        yield interned(Claim, seat, role, None, None)
                    # a Claim's result is checked as a stated result is (see _claim_result_refusal)
                    if role != BODYGUARD and self._results_refusal(seat, role) is None:
                        for target, colour in self._result_candidates(seat, role):
                            if self._result_target_refusal(seat, role, target, colour, forced) is None:
                                yield interned(Claim, seat, role, target, colour)
            elif kind is StateResult:
                claimed = self.claims[seat]
                forced = bool(self._responses)
                if self._results_refusal(seat, claimed) is None:
                    for target, colour in self._result_candidates(seat, claimed):
                        if self._result_target_refusal(seat, claimed, target, colour, forced) is None:
                            yield interned(StateResult, seat, target, colour)
            elif kind is RequestClaim:  # a CO要求 names a claimable role
                for role in CLAIMABLE_ROLES:
                    if self._request_refusal(role) is None:
                        yield _REQUESTS[seat][role]
            else:
                templates = _TARGETED[kind][seat]
                for target in SEATS:
                    if self._target_refusal(kind, seat, target) is None:
                        yield templates[target]

    def _result_candidates(self, seat: int, role: int) -> Iterator[tuple[int, Colour]]:
        """The results a ``role`` claimant could name, in menu order (the rule then picks the
        ones it may state): a real claimant's own results as it learned them, a fake's every
        seat (占い師) or executed seat (霊媒師, in the order of the executions), 白 then 黒."""
        if role == self.players[seat].R:
            for _, target, colour in self._divine_results if role == SEER else self._medium_results:
                yield target, colour
            return
        targets = SEATS if role == SEER else [t for _, t in self.executions]
        for target in targets:
            for colour in _RESULT_COLOURS:
                yield target, colour

    # ------------------------------------------------------------------ apply

    def apply(self, action: Action) -> list[PublicEntry]:
        """Play ``action``; return the public log entries it produced.

        Raises:
            IllegalActionError: the action is not legal now (``rule`` says why, see
                :meth:`refusal`); nothing changed.
            GameOverError: the game has ended.
        """
        kind = type(action)
        a: Any = action
        limit = self._text_limit
        if (
            kind is Speak
            and type(a.actor) is int
            and type(a.text) is str
            and 0 < a.actor < 10
            and len(a.text) <= limit
            and self._stage != STAGE_ENDED
        ):
            # The commonest action, checked and applied in one go (the simulation's hot path):
            # these are refusal()'s first steps for a Speak whose fields have the exact types,
            # so the form holds and the same clauses decide.
            seat = a.actor
            refused = self._actor_refusal(kind, seat)
            if refused is not None:
                raise _error(refused)
            self._version += 1
            day = self.phase.day
            text = a.text
            entry = (
                (_shared_get((Speech, day, seat, "")) or interned(Speech, day, seat, ""))
                if not text
                else Speech(day, seat, text)
            )
            self.public_log.append(entry)  # type: ignore[arg-type]
            self._snapshot = self._public_fields = None
            if self._responses:
                self._next_turn()
            else:
                index = self._turn_index = self._turn_index + 1
                turns = self._turns
                if index < len(turns) and self._alive[turns[index]]:
                    self._speaker = turns[index]
                else:
                    self._find_speaker()
            return [entry]  # type: ignore[list-item]
        if (
            kind is Vote
            and type(a.actor) is int
            and type(a.target) is int
            and type(a.reason) is str
            and 0 < a.actor < 10
            and 0 < a.target < 10
            and len(a.reason) <= limit
            and self._stage != STAGE_ENDED
        ):
            # a vote, likewise (it is secret until the tally: nothing public changes)
            seat, target = a.actor, a.target
            refused = self._actor_refusal(kind, seat) or self._target_refusal(kind, seat, target)
            if refused is not None:
                raise _error(refused)
            self._version += 1
            self._votes[seat] = a
            day = self.phase.day
            taken = _shared_get((ActionTaken, day, "vote", target)) or interned(
                ActionTaken, day, "vote", target
            )
            self.private_logs[seat].append(taken)  # type: ignore[arg-type]
            return []
        refused = self._refused(action)
        if refused is not None:
            raise _error(refused)
        self._version += 1
        action = _normalised(action)
        log = self.public_log
        start = len(log)
        seat = action.actor
        day = self.phase.day
        if isinstance(action, Speak):
            log.append(interned(Speech, day, seat, "") if not action.text else Speech(day, seat, action.text))
            self._next_turn()
        elif isinstance(action, Vote):
            self._votes[seat] = action
            self.private_logs[seat].append(interned(ActionTaken, day, "vote", action.target))
        elif isinstance(action, ChooseRole):
            self.players[seat].R = int(action.role)
            self._stage = STAGE_DEAL
        elif isinstance(action, Attack):
            self._apply_attack(action)
        elif isinstance(action, Divine):
            self.records[ABILITY_DIVINE] = interned(
                AbilityRecord, ABILITY_DIVINE, seat, action.target, UNPROCESSED
            )
            self.players[seat].U = 1
            self.private_logs[seat].append(interned(ActionTaken, day, "divine", action.target))
        elif isinstance(action, Guard):
            self.records[ABILITY_GUARD] = interned(
                AbilityRecord, ABILITY_GUARD, seat, action.target, UNPROCESSED
            )
            self.players[seat].U = 1
            self.private_logs[seat].append(interned(ActionTaken, day, "guard", action.target))
        else:
            self._apply_discussion(action)
        if len(log) != start or kind is ChooseRole:
            self._snapshot = self._public_fields = (
                None  # the public state changed (a vote or a night choice is secret)
            )
        return log[start:]

    def _next_turn(self) -> None:
        """The discussion moves to the next turn (or the next CO要求 answer)."""
        if self._responses:
            seat = self._responses.pop(0)
            if self.options.answer_takes_turn and seat != self._caller():
                self._spend_next_turn(seat)
            self._find_speaker()
            return
        index = self._turn_index = self._turn_index + 1
        turns = self._turns
        if index < len(turns) and self._alive[turns[index]]:
            self._speaker = turns[index]
        else:
            self._find_speaker()

    def _caller(self) -> int:
        """The seat whose CO要求 is being answered (the latest one of the public log)."""
        for entry in reversed(self.public_log):
            if type(entry) is ClaimRequested:
                return entry.speaker
        raise AssertionError("an answer without a CO要求")  # pragma: no cover - answers follow one

    def _spend_next_turn(self, seat: int) -> None:
        """``seat`` answered a CO要求: its next discussion turn of the day is the answer."""
        turns = self._turns
        for index in range(self._turn_index, len(turns)):
            if turns[index] == seat:
                del turns[index]
                return

    def _apply_attack(self, action: Attack) -> None:
        seat = action.actor
        self._attack_proposals[seat] = action.target
        self.players[seat].U = 1
        self.private_logs[seat].append(interned(ActionTaken, self.phase.day, "attack", action.target))
        players = self.players
        wolves = [s for s in self._living if players[s].R == WEREWOLF]
        if all(w in self._attack_proposals for w in wolves):
            # Disagreeing wolves: the human wolf decides if there is one, else the lower seat.
            decider = HUMAN_SEAT if HUMAN_SEAT in self._attack_proposals else min(self._attack_proposals)
            self.records[ABILITY_ATTACK] = interned(
                AbilityRecord, ABILITY_ATTACK, decider, self._attack_proposals[decider], UNPROCESSED
            )

    def _apply_discussion(self, action: Action) -> None:
        day = self.phase.day
        seat = action.actor
        log = self.public_log
        if isinstance(action, Claim):
            self.claims[seat] = action.role
            self._claim_list = (*self._claim_list, (seat, action.role))
            log.append(ClaimMade(day, seat, action.role, action.target, action.colour, action.text))
            if action.target is not None:
                self._stated.setdefault(seat, []).append(action.target)
        elif isinstance(action, StateResult):
            role = self.claims[seat]
            log.append(ResultStated(day, seat, role, action.target, action.colour, action.text))
            self._stated.setdefault(seat, []).append(action.target)
        elif isinstance(action, Decline):
            log.append(interned(Declined, day, seat, action.text))
        elif isinstance(action, RequestClaim):
            log.append(ClaimRequested(day, seat, action.role, action.text))
            self._requested_today.append(action.role)
        self._next_turn()
        if isinstance(action, RequestClaim):
            # Everyone alive who has not claimed answers, in seat order after the requester,
            # the requester last: asking everyone keeps who may claim a secret. A seat that
            # claimed the called role without a result is asked again, to state the result
            # due by now (real or fake alike, so the form tells nothing).
            order = [(seat + i - 1) % 9 + 1 for i in range(1, 10)]
            alive = self._alive
            owing = self._result_due(action.role)
            self._responses = [
                s
                for s in order
                if alive[s]
                and (
                    s not in self.claims
                    or (owing and self.claims[s] == action.role and not self._stated.get(s))
                )
            ]
            self._response_role = action.role
            self._find_speaker()

    # ------------------------------------------------------------------ engine steps

    def advance(self) -> list[PublicEntry]:
        """Run the next engine step; return the public log entries it produced.

        Raises:
            IllegalActionError: somebody still has to act (see :meth:`to_act`); nothing changed.
            GameOverError: the game has ended.
        """
        if self._stage == STAGE_ENDED:
            raise GameOverError(RULE_AFTER_END, "the game is over")
        waiting = self.to_act()
        if waiting:
            raise IllegalActionError(RULE_PENDING, f"waiting for {', '.join(f'P{s}' for s in waiting)}")
        start = len(self.public_log)
        stage = self._stage
        if stage == STAGE_DEAL:
            if self.source is None:
                raise IllegalActionError(RULE_DEAL, "ゲーム開始 needs a dice source to shuffle the roles")
            self._version += 1
            self._start(self._deal(self.source))
        elif stage == STAGE_PRE_DIVINATION:
            self._version += 1
            self._finish_pre_divination()
        elif stage == STAGE_DISCUSSION:
            self._version += 1
            self._open_vote(self._living, runoff=False)
        elif stage in (STAGE_VOTE, STAGE_RUNOFF):
            self._version += 1
            self._tally()
        elif stage == STAGE_EXECUTION:
            self._version += 1
            self._execute()
        elif stage == STAGE_NIGHT_START:
            self._version += 1
            self._start_night()
        elif stage == STAGE_NIGHT:
            self._version += 1
            self._morning()
        else:  # CHOOSE_ROLE is always waiting for P1, so this is unreachable
            raise IllegalActionError(RULE_PHASE, f"nothing to advance in {STAGES[stage].value}")
        self._snapshot = self._public_fields = None
        return self.public_log[start:]

    def _deal(self, source: DiceSource) -> list[Role]:
        """ゲーム開始 ①②: drop one of P1's role, Fisher-Yates the other eight with the source."""
        human = ROLES[self.players[HUMAN_SEAT].R]
        for _ in range(100):
            rest = list(COMPOSITION)
            rest.remove(human)
            for i in range(len(rest) - 1, 0, -1):
                j = source.roll(i + 1) - 1
                rest[i], rest[j] = rest[j], rest[i]
            deal = [human, *rest]
            try:
                check_composition(deal)
            except DealError:
                continue  # ② 条件を満たさない場合は処理①へ戻る
            return deal
        raise DealError("the deal never passed the composition check")  # pragma: no cover

    def _start(self, roles: list[Role]) -> None:
        """ゲーム開始 ③④⑤ for a checked deal."""
        self._version += 1  # every state change bumps the version (from_deal comes here directly)
        for seat, role in zip(SEATS, roles, strict=True):
            record = self.players[seat]
            record.R, record.L, record.U = int(role), ALIVE, 0
        wolves = tuple(s for s in SEATS if roles[s - 1] == WEREWOLF)
        for seat in SEATS:
            role = roles[seat - 1]
            partners = tuple(w for w in wolves if w != seat) if role == WEREWOLF else ()
            self.private_logs[seat].append(interned(RoleDealt, 1, role, partners))
        self.phase = PhaseRecord(1, DAY, STEP_BEFORE_START)
        self._refresh_alive()
        self.public_log.append(interned(GameStarted, 1))
        self._stage = STAGE_PRE_DIVINATION
        self._snapshot = self._public_fields = None

    def _finish_pre_divination(self) -> None:
        record = self.records.pop(ABILITY_DIVINE)
        colour = _COLOUR_OF_ROLE[self.players[record.T].R]
        self._divine_results.append((1, record.T, colour))
        self.private_logs[record.S].append(interned(DivineResult, 1, record.T, colour, True))
        self.public_log.append(interned(PreDivinationDone, 1))
        self._start_discussion()

    def _start_discussion(self) -> None:
        day = self.phase.day
        self.phase.T, self.phase.P = DAY, STEP_DISCUSSION
        self._stage = STAGE_DISCUSSION
        # the living seats in seat order, starting at P(day)
        start = (day - 1) % 9 + 1
        living = [s for s in self._living if s >= start] + [s for s in self._living if s < start]
        # a short day: one round (WerewolfOptions.one_round_at, one_round_from)
        rounds = self.options.rounds_on(day, len(living))
        self._turns = living * rounds
        self._turn_index = 0
        self._responses = []
        self._response_role = None
        self._requested_today = []
        self._find_speaker()
        self.public_log.append(interned(DiscussionStarted, day))

    def _open_vote(self, candidates: tuple[int, ...], runoff: bool) -> None:
        self.phase.P = STEP_VOTE
        self._stage = STAGE_RUNOFF if runoff else STAGE_VOTE
        self._candidates = candidates
        self._votes = {}
        self.public_log.append(interned(VotingOpened, self.phase.day, runoff, candidates))

    def _tally(self) -> None:
        day = self.phase.day
        runoff = self._stage == STAGE_RUNOFF
        cast_votes = self._votes
        votes = [cast_votes[s] for s in SEATS if s in cast_votes]
        counts: dict[int, int] = {}
        for vote in votes:
            counts[vote.target] = counts.get(vote.target, 0) + 1
        best = max(counts.values())
        by_seat = sorted(counts.items())
        top = tuple(s for s, n in by_seat if n == best)
        # most votes first, ties by seat: a stable sort on the count keeps the seat order
        ordered = tuple(sorted(by_seat, key=itemgetter(1), reverse=True))
        cast = tuple([interned(CastVote, v.actor, v.target, v.reason) for v in votes])
        self._votes = {}
        if len(top) == 1:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "execute"))
            self._candidates = top
            self._stage = STAGE_EXECUTION
        elif not runoff:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "runoff"))
            self._open_vote(top, runoff=True)
        else:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "no_execution"))
            self.public_log.append(interned(NoExecution, day))
            self._candidates = ()
            self._executed_today = None
            if not self._win_check():
                self._stage = STAGE_NIGHT_START

    def _execute(self) -> None:
        seat = self._candidates[0]
        day = self.phase.day
        self.phase.P = STEP_EXECUTION
        self.players[seat].L = DEAD  # R and U unchanged
        self._refresh_alive()
        self.executions = (*self.executions, (day, seat))
        self._executed_today = seat
        self._candidates = ()
        self.public_log.append(interned(Executed, day, seat))
        if not self._win_check():
            self._stage = STAGE_NIGHT_START

    def _start_night(self) -> None:
        self.phase.T, self.phase.P = NIGHT, STEP_NIGHT_ACTIONS
        for record in self.players[1:]:
            if record.L == ALIVE:
                record.U = 0
        self.records = {}
        self._attack_proposals = {}
        self._attack_tonight = bool(self.executions) or not self.options.attack_needs_execution
        self._stage = STAGE_NIGHT
        self.public_log.append(interned(NightStarted, self.phase.day))

    def _morning(self) -> None:
        """CMD_霊媒 then CMD_朝結果, in the document's order."""
        players = self.players
        night = self.phase.day
        # CMD_霊媒: a living 霊媒師 learns the colour of the player executed that day.
        medium = self._seat_of(MEDIUM)
        if self._executed_today is not None and players[medium].L == ALIVE:
            target = self._executed_today
            colour = _COLOUR_OF_ROLE[players[target].R]
            self.records[ABILITY_MEDIUM] = interned(
                AbilityRecord, ABILITY_MEDIUM, medium, target, int(colour)
            )
            players[medium].U = 1
            self._medium_results.append((night, target, colour))
        day = night + 1
        self.phase.day, self.phase.T, self.phase.P = day, DAY, STEP_MORNING
        # 1. the night's abilities
        divine = self.records.get(ABILITY_DIVINE)
        if divine is not None:
            colour = _COLOUR_OF_ROLE[players[divine.T].R]
            self.records[ABILITY_DIVINE] = interned(AbilityRecord, divine.A, divine.S, divine.T, int(colour))
            self._divine_results.append((day, divine.T, colour))
            self.private_logs[divine.S].append(interned(DivineResult, day, divine.T, colour, False))
        medium_record = self.records.get(ABILITY_MEDIUM)
        if medium_record is not None:
            self.private_logs[medium_record.S].append(
                interned(MediumResult, day, night, medium_record.T, COLOURS[medium_record.V])
            )
        attack = self.records.get(ABILITY_ATTACK)
        guard = self.records.get(ABILITY_GUARD)
        guarded = attack is not None and guard is not None and guard.T == attack.T
        if guard is not None:
            value = SUCCESS if guarded else FAILURE
            self.records[ABILITY_GUARD] = interned(AbilityRecord, guard.A, guard.S, guard.T, value)
            self.private_logs[guard.S].append(interned(GuardResolved, day, guard.T, guarded))
        # 2.-3. the attack and its victim
        victim: int | None = None
        if attack is not None:
            value = FAILURE if guarded else SUCCESS
            self.records[ABILITY_ATTACK] = interned(AbilityRecord, attack.A, attack.S, attack.T, value)
            if not guarded:
                victim = attack.T
                players[victim].L = DEAD
                self._refresh_alive()
                self.victims = (*self.victims, (day, victim))
            resolved = interned(AttackResolved, day, attack.T, attack.S, not guarded)
            for wolf in SEATS:  # a dead 人狼 takes no part in the night: it learns nothing of it
                if players[wolf].R == WEREWOLF and players[wolf].L == ALIVE:
                    self.private_logs[wolf].append(resolved)
        # 4. the announcement (5. 【公開情報】 is rendered from the public view)
        self.public_log.append(interned(MorningReport, day, victim))
        self._executed_today = None
        self._attack_proposals = {}
        # 6. the win check; then ATTACK/DIVINE/GUARD/MEDIUM are cleared
        ended = self._win_check()
        self.records = {}
        if not ended:
            self._start_discussion()

    def _win_check(self) -> bool:
        """CMD_勝敗判定: no living 人狼 -> 村人陣営; living 人狼 >= living humans -> 人狼陣営."""
        wolves = humans = 0
        for record in self.players[1:]:
            if record.L == ALIVE:
                if record.R == WEREWOLF:
                    wolves += 1
                else:
                    humans += 1  # the 狂人 counts as a human
        if wolves == 0:
            self.winner = Team.VILLAGE
        elif wolves >= humans:
            self.winner = Team.WEREWOLF
        else:
            return False
        self.phase.P = STEP_ENDED
        self._stage = STAGE_ENDED
        self._responses = []
        self.public_log.append(
            GameEnded(
                self.phase.day,
                self.winner,
                tuple(s for s in SEATS if self.players[s].L == ALIVE),
                tuple(s for s in SEATS if self.players[s].L != ALIVE),
                tuple((s, ROLES[self.players[s].R]) for s in SEATS),
            )
        )
        return True

    def _seat_of(self, role: int) -> int:
        for seat in SEATS:
            if role == self.players[seat].R:
                return seat
        raise LookupError(role)  # pragma: no cover - the composition has every role

    # ------------------------------------------------------------------ serialisation

    def to_dict(self, *, logs: bool = True) -> dict[str, Any]:
        """The whole state as plain JSON data (GM knowledge: every secret is in here); without
        the public and private logs when ``logs`` is False."""
        state = {
            "options": self.options.model_dump(mode="json"),
            "names": {str(k): v for k, v in self.names.items()},
            "players": [asdict(p) for p in self.players[1:]],
            "phase": asdict(self.phase),
            "stage": STAGES[self._stage].value,
            "records": {_ABILITY_NAMES[a]: asdict(r) for a, r in sorted(self.records.items())},
            "attack_proposals": sorted(self._attack_proposals.items()),
            "attack_tonight": self._attack_tonight,
            "votes": [[s, asdict(v)] for s, v in sorted(self._votes.items())],
            "candidates": list(self._candidates),
            "turns": self._turns,
            "turn_index": self._turn_index,
            "responses": self._responses,
            "response_role": self._response_role,
            "requested_today": self._requested_today,
            "claims": sorted(self.claims.items()),
            "stated": sorted(self._stated.items()),
            "divine_results": self._divine_results,
            "medium_results": self._medium_results,
            "executions": self.executions,
            "executed_today": self._executed_today,
            "victims": self.victims,
            "winner": None if self.winner is None else self.winner.value,
        }
        if logs:
            state["public_log"] = [_entry_dict(e) for e in self.public_log]
            private = self.private_logs.items()
            state["private_logs"] = {str(s): [_entry_dict(e) for e in log] for s, log in private}
        return state

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_dict`.

        The logs, which only grow, are most of that text: each entry's JSON is made once per
        entry value (:func:`_entry_text`, through the interning table) and spliced in, so the
        text is byte for byte what ``json.dumps(self.to_dict(), sort_keys=True, ...)`` gives
        (a test checks it) while a step costs what is new rather than the whole game.
        """
        state = self.to_dict(logs=False)
        public = "[" + ",".join([interned(_entry_text, e) for e in self.public_log]) + "]"
        private = "{" + ",".join(
            f'"{seat}":[' + ",".join([interned(_entry_text, e) for e in log]) + "]"
            for seat, log in sorted((str(s), log) for s, log in self.private_logs.items())
        ) + "}"
        parts = {key: _canonical(value) for key, value in state.items()}
        parts["public_log"] = public
        parts["private_logs"] = private
        text = "{" + ",".join(f"{_canonical(key)}:{parts[key]}" for key in sorted(parts)) + "}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


_ABILITY_NAMES: dict[int, str] = {
    ABILITY_ATTACK: "ATTACK",
    ABILITY_DIVINE: "DIVINE",
    ABILITY_GUARD: "GUARD",
    ABILITY_MEDIUM: "MEDIUM",
}
_COLOUR_OF_ROLE: dict[int, Colour] = {number: Colour.of(number) for number in ROLES}
_new_tuple = tuple.__new__
_shared_get = shared_get  # the interning table's lookup, for the hot paths (a global read, no call)


def _entry_dict(entry: object) -> dict[str, Any]:
    return asdict(entry)  # type: ignore[call-overload, no-any-return]


def _canonical(value: object) -> str:
    """The canonical JSON text the state hash is taken over."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _entry_text(entry: object) -> str:
    return _canonical(_entry_dict(entry))


def _normalised(action: Action) -> Action:
    """``action`` (accepted by the rule) with its fields as the engine stores them: ints, Role
    and Colour members, plain str text. The action itself when they already are (the common
    case); a caller may have passed ``Claim(2, 3)`` or an int subclass for a seat."""
    a: Any = action
    kind = type(action)
    exact = type(a.actor) is int
    if kind is Speak or kind is Decline:
        exact = exact and type(a.text) is str
    elif kind is Vote:
        exact = exact and type(a.target) is int and type(a.reason) is str
    elif kind is Attack or kind is Divine or kind is Guard:
        exact = exact and type(a.target) is int
    elif kind is ChooseRole:
        exact = exact and type(a.role) is Role
    elif kind is RequestClaim:
        exact = exact and type(a.role) is Role and type(a.text) is str
    elif kind is StateResult:
        exact = exact and type(a.target) is int and type(a.colour) is Colour and type(a.text) is str
    else:  # Claim
        exact = (
            exact
            and type(a.role) is Role
            and (a.target is None or type(a.target) is int)
            and (a.colour is None or type(a.colour) is Colour)
            and type(a.text) is str
        )
    return action if exact else _rebuilt(action)


def _rebuilt(action: Action) -> Action:
    actor = int(action.actor)
    if isinstance(action, Speak):
        return Speak(actor, str(action.text))
    if isinstance(action, Decline):
        return Decline(actor, str(action.text))
    if isinstance(action, Vote):
        return Vote(actor, int(action.target), str(action.reason))
    if isinstance(action, Attack):
        return Attack(actor, int(action.target))
    if isinstance(action, Divine):
        return Divine(actor, int(action.target))
    if isinstance(action, Guard):
        return Guard(actor, int(action.target))
    if isinstance(action, ChooseRole):
        return ChooseRole(actor, ROLES[action.role])
    if isinstance(action, RequestClaim):
        return RequestClaim(actor, ROLES[action.role], str(action.text))
    if isinstance(action, StateResult):
        return StateResult(actor, int(action.target), COLOURS[action.colour], str(action.text))
    target = None if action.target is None else int(action.target)
    colour = None if action.colour is None else COLOURS[action.colour]
    return Claim(actor, ROLES[action.role], target, colour, str(action.text))
