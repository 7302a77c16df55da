"""The werewolf game: state, legality, engine steps and the win check.

A :class:`Game` is driven in the python-chess style (see the package docstring for the loop):
:meth:`Game.to_act` names who must act now, :meth:`Game.legal_actions` lists what a seat may do,
:meth:`Game.apply` plays one action and :meth:`Game.advance` runs the next engine step once
nobody has to act. :meth:`Game.outcome` is ``None`` until the game ends.

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
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from itertools import compress, filterfalse
from operator import itemgetter
from typing import Any, Literal, TypeVar

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
    with_text,
)
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
from gm_engine.werewolf.options import MadmanClaims, WerewolfOptions
from gm_engine.werewolf.records import (
    CLAIMABLE_ROLES,
    COMPOSITION,
    HUMAN_SEAT,
    PERSONA_NAMES,
    SEATS,
    Ability,
    AbilityRecord,
    Colour,
    Life,
    PhaseRecord,
    PlayerRecord,
    RecordValue,
    Role,
    Step,
    Team,
    TimeOfDay,
)

DEFAULT_HUMAN_NAME = "あなた"


class WerewolfError(ValueError):
    """Base class of the werewolf engine's errors."""


class IllegalActionError(WerewolfError):
    """An action or engine step the rules do not allow now. The state is unchanged.

    ``rule`` names the rule broken (the document's clause where there is one).
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


def checked_seat(seat: object) -> int:
    """``seat`` if it is an int 1..9 (not a bool), else :class:`SeatError`."""
    if type(seat) is int and 0 < seat < 10:
        return seat
    if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= 9:
        return int(seat)  # an int subclass such as an IntEnum
    raise SeatError(f"{RULE_SEAT}: 席は1～9の整数で指定してください (受け取った値: {seat!r})")


class Stage(StrEnum):
    """Where the game is, finer than PHASE.P: it tells who acts and which step comes next."""

    CHOOSE_ROLE = "choose_role"
    """P1 must choose its role (CMD_役職選択)."""
    DEAL = "deal"
    """advance() deals the roles (CMD_ゲーム開始)."""
    PRE_DIVINATION = "pre_divination"
    """The 占い師 divines before day 1 (CMD_事前占い)."""
    DISCUSSION = "discussion"
    """Discussion turns (CMD_議論, CMD_CO, CMD_CO要求); advance() opens the vote when done."""
    VOTE = "vote"
    """Every living player votes (CMD_投票)."""
    RUNOFF = "runoff"
    """The one 決選投票 between the tied players."""
    EXECUTION = "execution"
    """advance() executes the top player and runs the win check (CMD_処刑, CMD_勝敗判定)."""
    NIGHT_START = "night_start"
    """advance() starts the night (CMD_夜開始)."""
    NIGHT = "night"
    """Night actions (CMD_襲撃, CMD_占い, CMD_護衛); advance() then runs CMD_霊媒 and CMD_朝結果."""
    ENDED = "ended"
    """【ゲーム終了】: nothing more is accepted."""


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """The end of a game: the winning team and the day it ended."""

    winner: Team
    day: int


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


_ACTION_TYPES = frozenset(
    (ChooseRole, Speak, Claim, StateResult, RequestClaim, Decline, Vote, Attack, Divine, Guard)
)

# Interned templates: the legal lists are built of these, so enumerating costs no allocation.
_SPEAKS: list[Action] = [Speak(s) for s in range(10)]
_DECLINES: list[Action] = [Decline(s) for s in range(10)]
_VOTES: list[list[Action]] = [[Vote(s, t) for t in range(10)] for s in range(10)]
_ATTACKS: list[list[Action]] = [[Attack(s, t) for t in range(10)] for s in range(10)]
_DIVINES: list[list[Action]] = [[Divine(s, t) for t in range(10)] for s in range(10)]
_GUARDS: list[list[Action]] = [[Guard(s, t) for t in range(10)] for s in range(10)]


_CHOOSE_ROLES: tuple[Action, ...] = tuple(ChooseRole(HUMAN_SEAT, role) for role in sorted(set(COMPOSITION)))
_REQUESTS: list[dict[Role, Action]] = [{r: RequestClaim(s, r) for r in Role} for s in range(10)]
_CLAIMS: dict[tuple[int, Role, int | None, Colour | None], Action] = {}
_STATES: dict[tuple[int, int, Colour], Action] = {}


# PLAYER.R and record values are plain ints; these read them back as enums with one dict lookup
# (calling the enum class costs a Python-level call each time).
_ROLES: dict[int, Role] = {int(role): role for role in Role}
_COLOURS: dict[int, Colour] = {int(colour): colour for colour in Colour}
_COLOUR_OF_ROLE: dict[int, Colour] = {int(role): Colour.of(role) for role in Role}

# Entries the hot path writes again and again, shared (they are frozen, so sharing is safe and
# equal entries compare equal either way): a pass (empty speech) and one's own secret choice.
_PASSES: dict[tuple[int, int], Speech] = {}
_TAKEN: dict[tuple[int, str, int], ActionTaken] = {}


def _speech(day: int, seat: int, text: str) -> Speech:
    if text:
        return Speech(day, seat, text)
    key = (day, seat)
    found = _PASSES.get(key)
    if found is None:
        found = _PASSES[key] = Speech(day, seat, "")
    return found


_RECORDS: dict[tuple[int, int, int, int], AbilityRecord] = {}

_SHARED: dict[tuple[object, ...], object] = {}
E = TypeVar("E")


def _shared(kind: Callable[..., E], *fields: Hashable) -> E:
    """``kind(*fields)``, one shared instance per value: the engine's log entries and records are
    frozen, so an equal one may stand for another, and making one costs a Python call per field.
    The fields are small numbers, enums and tuples of them; the cache is emptied if it ever fills."""
    key = (kind, *fields)
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= 65536:
            _SHARED.clear()
        found = _SHARED[key] = kind(*fields)
    return found  # type: ignore[return-value]


# Entries carrying free text are shared too (the offline agents say the same few things again and
# again), in caches emptied when full: the text of a model or a human may be anything.
_TEXT_CACHE_LIMIT = 4096
_CAST_VOTES: dict[tuple[int, int, str], CastVote] = {}
_DECLINED: dict[tuple[int, int, str], Declined] = {}


def _cast_vote(vote: Vote) -> CastVote:
    key = (vote.actor, vote.target, vote.reason)
    found = _CAST_VOTES.get(key)
    if found is None:
        if len(_CAST_VOTES) >= _TEXT_CACHE_LIMIT:
            _CAST_VOTES.clear()
        found = _CAST_VOTES[key] = CastVote(vote.actor, vote.target, vote.reason)
    return found


def _declined(day: int, seat: int, text: str) -> Declined:
    key = (day, seat, text)
    found = _DECLINED.get(key)
    if found is None:
        if len(_DECLINED) >= _TEXT_CACHE_LIMIT:
            _DECLINED.clear()
        found = _DECLINED[key] = Declined(day, seat, text)
    return found


def _record(ability: int, actor: int, target: int, value: int = RecordValue.UNPROCESSED) -> AbilityRecord:
    """The (frozen, shared) ATTACK / DIVINE / GUARD / MEDIUM record ``A S T V``."""
    key = (ability, actor, target, value)
    found = _RECORDS.get(key)
    if found is None:
        found = _RECORDS[key] = AbilityRecord(ability, actor, target, value)
    return found


def _taken(day: int, ability: Literal["vote", "attack", "divine", "guard"], target: int) -> ActionTaken:
    key = (day, ability, target)
    found = _TAKEN.get(key)
    if found is None:
        found = _TAKEN[key] = ActionTaken(day, ability, target)
    return found


def _claim(seat: int, role: Role, target: int | None, colour: Colour | None) -> Action:
    key = (seat, role, target, colour)
    found = _CLAIMS.get(key)
    if found is None:
        found = _CLAIMS[key] = Claim(seat, role, target, colour)
    return found


def _state(seat: int, target: int, colour: Colour) -> Action:
    key = (seat, target, colour)
    found = _STATES.get(key)
    if found is None:
        found = _STATES[key] = StateResult(seat, target, colour)
    return found


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
        if isinstance(number, bool) or not isinstance(number, int):
            raise DealError(f"{RULE_DEAL}: P{seat}の役職番号が整数ではありません: {number!r}")
        if number not in _ROLES:
            raise DealError(f"{RULE_DEAL}: P{seat}の役職番号{number!r}は1～6ではありません")
        dealt.append(_ROLES[number])
    if sorted(dealt) != sorted(COMPOSITION):
        raise DealError(f"{RULE_DEAL}: 役職の構成が違います: {[int(r) for r in dealt]!r}")
    return dealt


# Enum members used on the hot paths, read as module globals: Python 3.11's EnumType has a
# __getattr__ hook, which turns every ``Stage.VOTE`` into a slow attribute lookup (~100 ns);
# the engine and the agents read these members several hundred times a game.
_ABILITY_ATTACK = Ability.ATTACK
_ABILITY_DIVINE = Ability.DIVINE
_ABILITY_GUARD = Ability.GUARD
_ABILITY_MEDIUM = Ability.MEDIUM
_COLOUR_BLACK = Colour.BLACK
_COLOUR_WHITE = Colour.WHITE
_LIFE_ALIVE = Life.ALIVE
_LIFE_DEAD = Life.DEAD
_RECORDVALUE_FAILURE = RecordValue.FAILURE
_RECORDVALUE_SUCCESS = RecordValue.SUCCESS
_ROLE_BODYGUARD = Role.BODYGUARD
_ROLE_MADMAN = Role.MADMAN
_ROLE_MEDIUM = Role.MEDIUM
_ROLE_SEER = Role.SEER
_ROLE_VILLAGER = Role.VILLAGER
_ROLE_WEREWOLF = Role.WEREWOLF
_STAGE_CHOOSE_ROLE = Stage.CHOOSE_ROLE
_STAGE_DEAL = Stage.DEAL
_STAGE_DISCUSSION = Stage.DISCUSSION
_STAGE_ENDED = Stage.ENDED
_STAGE_EXECUTION = Stage.EXECUTION
_STAGE_NIGHT = Stage.NIGHT
_STAGE_NIGHT_START = Stage.NIGHT_START
_STAGE_PRE_DIVINATION = Stage.PRE_DIVINATION
_STAGE_RUNOFF = Stage.RUNOFF
_STAGE_VOTE = Stage.VOTE
_STEP_BEFORE_START = Step.BEFORE_START
_STEP_DISCUSSION = Step.DISCUSSION
_STEP_ENDED = Step.ENDED
_STEP_EXECUTION = Step.EXECUTION
_STEP_MORNING = Step.MORNING
_STEP_NIGHT_ACTIONS = Step.NIGHT_ACTIONS
_STEP_VOTE = Step.VOTE
_TEAM_VILLAGE = Team.VILLAGE
_TEAM_WEREWOLF = Team.WEREWOLF
_TIMEOFDAY_DAY = TimeOfDay.DAY
_TIMEOFDAY_NIGHT = TimeOfDay.NIGHT


_DEFAULT_OPTIONS = WerewolfOptions()  # frozen, so every game may share it


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
        "_divine_results",
        "_executed_today",
        "_legal_cache",
        "_living",
        "_medium_results",
        "_public_snapshot",
        "_requested_today",
        "_response_role",
        "_responses",
        "_snapshot_of",
        "_speaker",
        "_stated",
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
        "stage",
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
        self.source = source
        self.names: dict[int, str] = {HUMAN_SEAT: human_name, **PERSONA_NAMES}
        self.name_table: tuple[str, ...] = ("", *(self.names[s] for s in SEATS))
        self.players: list[PlayerRecord] = [PlayerRecord() for _ in range(10)]  # index 0 unused
        self.phase = PhaseRecord()
        self.stage = _STAGE_CHOOSE_ROLE
        self.records: dict[Ability, AbilityRecord] = {}
        self.public_log: list[PublicEntry] = []
        self.private_logs: dict[int, list[PrivateEntry]] = {seat: [] for seat in SEATS}
        self.claims: dict[int, Role] = {}
        self.executions: list[tuple[int, int]] = []
        self.victims: list[tuple[int, int]] = []
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
        self._public_snapshot: tuple[PublicEntry, ...] = ()
        self._snapshot_of: list[PublicEntry] | None = None  # the log the snapshot copies (append-only)

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

    def role_of(self, seat: int) -> Role:
        """PLAYER.R of ``seat`` (GM knowledge: never put this in a view).

        Raises:
            SeatError: ``seat`` is not an int 1..9.
            LookupError: the roles are not dealt yet.
        """
        number = self.players[checked_seat(seat)].R
        if number not in _ROLES:
            raise LookupError(f"P{seat}の役職はまだ配られていません")
        return _ROLES[number]

    def is_alive(self, seat: int) -> bool:
        """PLAYER.L == 1.

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        return self.players[checked_seat(seat)].L == _LIFE_ALIVE

    def alive_flags(self) -> tuple[bool, ...]:
        """``flags[seat]`` is True for a living seat (index 0 unused). Public: deaths are announced."""
        return self._alive

    def _refresh_alive(self) -> None:
        self._alive = alive = (False, *[record.L == _LIFE_ALIVE for record in self.players[1:]])
        self._living = tuple(compress(SEATS, alive[1:]))

    def living(self) -> list[int]:
        """The living seats, in seat order."""
        return [s for s in SEATS if self.players[s].L == _LIFE_ALIVE]

    @property
    def is_over(self) -> bool:
        """True after 【ゲーム終了】."""
        return self.stage is _STAGE_ENDED

    def outcome(self) -> GameOutcome | None:
        """The winner once the game has ended, else ``None``."""
        if self.winner is None:
            return None
        return GameOutcome(self.winner, self.phase.day)

    def current_speaker(self) -> int | None:
        """The seat whose discussion turn (or CO要求 answer) it is, or ``None``."""
        return self._speaker if self.stage is _STAGE_DISCUSSION else None

    def _find_speaker(self) -> None:
        """Recompute the speaker after the discussion's turns or answers changed."""
        self._speaker = None
        if self._responses:
            self._speaker = self._responses[0]
            return
        while self._turn_index < len(self._turns):
            seat = self._turns[self._turn_index]
            if self.players[seat].L == _LIFE_ALIVE:
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

    def to_act(self) -> list[int]:
        """The seats that must act before :meth:`advance` (empty: call advance, or the game is over).

        At the vote and at night several seats act independently, in any order.
        """
        stage = self.stage
        if stage is _STAGE_DISCUSSION:
            return [] if self._speaker is None else [self._speaker]
        alive = self._alive
        if stage is _STAGE_VOTE or stage is _STAGE_RUNOFF:
            # every living seat votes; nobody dies during a vote
            return list(filterfalse(self._votes.__contains__, self._living))
        if stage is _STAGE_NIGHT:
            pending = []
            players = self.players
            for s in SEATS:
                if not alive[s]:
                    continue
                role = players[s].R
                if role == _ROLE_WEREWOLF:
                    if self._attack_tonight and s not in self._attack_proposals:
                        pending.append(s)
                elif role == _ROLE_SEER:
                    if _ABILITY_DIVINE not in self.records:
                        pending.append(s)
                elif role == _ROLE_BODYGUARD and _ABILITY_GUARD not in self.records:
                    pending.append(s)
            return pending
        if stage is _STAGE_CHOOSE_ROLE:
            return [HUMAN_SEAT]
        if stage is _STAGE_PRE_DIVINATION:
            seer = self._seat_of(_ROLE_SEER)
            return [seer] if _ABILITY_DIVINE not in self.records else []
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, with empty text (fill it in with ``with_text``).

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

    def public_log_snapshot(self) -> tuple[PublicEntry, ...]:
        """The public log as a tuple, shared by the observations made until the next entry."""
        log = self.public_log
        snapshot = self._public_snapshot
        if len(snapshot) != len(log) or self._snapshot_of is not log:
            snapshot = self._public_snapshot = tuple(log)
            self._snapshot_of = log
        return snapshot

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        try:
            self._check(action)
        except IllegalActionError:
            return False
        return True

    # ------------------------------------------------------------------ legality

    def _legal(self, seat: int) -> tuple[Action, ...]:
        cached = self._legal_cache.get(seat)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        actions = tuple(self._enumerate(seat))
        self._legal_cache[seat] = (self._version, actions)
        return actions

    def _enumerate(self, seat: int) -> list[Action]:
        if not isinstance(seat, int) or seat not in SEATS:
            return []
        stage = self.stage
        record = self.players[seat]
        if stage is _STAGE_CHOOSE_ROLE:
            if seat != HUMAN_SEAT:
                return []
            return list(_CHOOSE_ROLES)
        if record.L != _LIFE_ALIVE:
            return []
        if stage is _STAGE_DISCUSSION:
            if seat != self.current_speaker():
                return []
            return self._discussion_actions(seat)
        if stage is _STAGE_VOTE or stage is _STAGE_RUNOFF:
            if seat in self._votes:
                return []
            players = self.players
            return [
                _VOTES[seat][t] for t in self._candidates if t != seat and players[t].L == _LIFE_ALIVE
            ]
        if stage is _STAGE_NIGHT:
            return self._night_actions(seat)
        if stage is _STAGE_PRE_DIVINATION:
            if record.R != _ROLE_SEER or _ABILITY_DIVINE in self.records:
                return []
            return [_DIVINES[seat][t] for t in SEATS if t != seat]
        return []

    def _night_actions(self, seat: int) -> list[Action]:
        players = self.players
        role = players[seat].R
        if role == _ROLE_WEREWOLF:
            if not self._attack_tonight or seat in self._attack_proposals:
                return []
            return [
                _ATTACKS[seat][t]
                for t in SEATS
                if players[t].L == _LIFE_ALIVE and players[t].R != _ROLE_WEREWOLF
            ]
        if role == _ROLE_SEER:
            if _ABILITY_DIVINE in self.records:
                return []
            return [_DIVINES[seat][t] for t in SEATS if t != seat and players[t].L == _LIFE_ALIVE]
        if role == _ROLE_BODYGUARD:
            if _ABILITY_GUARD in self.records:
                return []
            return [_GUARDS[seat][t] for t in SEATS if t != seat and players[t].L == _LIFE_ALIVE]
        return []

    def may_claim(self, seat: int, role: Role) -> bool:
        """The club rule (CMD_CO): may ``seat``'s real role claim ``role``?

        Raises:
            SeatError: ``seat`` is not an int 1..9.
        """
        own = _ROLES.get(self.players[checked_seat(seat)].R)
        if role not in CLAIMABLE_ROLES:
            return False
        if own is _ROLE_WEREWOLF:
            return True
        if own is _ROLE_MADMAN:
            return self.options.madman_claims is MadmanClaims.LIKE_WEREWOLF
        if own is _ROLE_VILLAGER:
            return False
        return own is role

    def _true_results(self, seat: int, role: Role) -> list[tuple[int, Colour]]:
        """The real results ``seat`` owns for a claim of ``role``, oldest first."""
        own = self.players[seat].R
        if role is _ROLE_SEER and own == _ROLE_SEER:
            return [(t, c) for _, t, c in self._divine_results]
        if role is _ROLE_MEDIUM and own == _ROLE_MEDIUM:
            return [(t, c) for _, t, c in self._medium_results]
        return []

    def _result_options(self, seat: int, role: Role, forced: bool) -> list[tuple[int, Colour]]:
        """The results ``seat`` may state next as a ``role`` claimant.

        A real 占い師 / 霊媒師 states its own results, each once. A fake one may state what a
        real one could have by now: a 占い師 one target per day at most (事前占い + one per
        night), a 霊媒師 only the colours of executed players. ``forced`` (a CO要求 answer)
        narrows it to the one result a real claimant must give: the 事前占い result on day 1,
        the latest execution's colour after.
        """
        stated = self._stated.get(seat, [])
        own = self.players[seat].R
        if own == role:
            results = [(t, c) for t, c in self._true_results(seat, role) if t not in stated]
            return results[-1:] if forced else results
        targets: list[int]
        if role is _ROLE_SEER:
            if len(stated) >= self.phase.day:
                return []
            targets = [t for t in SEATS if t != seat and t not in stated]
        elif role is _ROLE_MEDIUM:
            executed = [t for d, t in self.executions if d < self.phase.day]
            if forced:
                executed = executed[-1:]
            targets = [t for t in executed if t != seat and t not in stated]
        else:
            return []
        return [(t, c) for t in targets for c in (_COLOUR_WHITE, _COLOUR_BLACK)]

    def _claim_options(self, seat: int, role: Role, forced: bool) -> list[Action]:
        if role is _ROLE_BODYGUARD:
            return [_claim(seat, role, None, None)]
        results = self._result_options(seat, role, forced)
        options: list[Action] = [_claim(seat, role, t, c) for t, c in results]
        needs_result = forced and (role is _ROLE_SEER or any(d < self.phase.day for d, _ in self.executions))
        if not needs_result:
            options.insert(0, _claim(seat, role, None, None))
        return options

    def _discussion_actions(self, seat: int) -> list[Action]:
        if self._responses:
            role = self._response_role
            assert role is not None
            if role == self.players[seat].R:
                return self._claim_options(seat, role, forced=True)
            actions: list[Action] = [_DECLINES[seat]]
            if self.may_claim(seat, role):
                actions.extend(self._claim_options(seat, role, forced=True))
            return actions
        actions = [_SPEAKS[seat]]
        claimed = self.claims.get(seat)
        if claimed is None:
            for role in CLAIMABLE_ROLES:
                if self.may_claim(seat, role):
                    actions.extend(self._claim_options(seat, role, forced=False))
        elif claimed in (_ROLE_SEER, _ROLE_MEDIUM):
            actions.extend(_state(seat, t, c) for t, c in self._result_options(seat, claimed, False))
        request = _ROLE_SEER if self.phase.day == 1 else _ROLE_MEDIUM
        if request not in self._requested_today:
            actions.append(_REQUESTS[seat][request])
        return actions

    def _check(self, action: Action) -> Action:
        """Return ``action`` (normalised) if legal, else raise the rule it breaks."""
        stage = self.stage
        if stage is _STAGE_ENDED:
            raise GameOverError(RULE_AFTER_END, "the game is over")
        if type(action) not in _ACTION_TYPES:
            raise IllegalActionError(RULE_FORM, f"not a werewolf action: {action!r}")
        if self._fast_legal(action, stage):
            return action
        template = _template(action)
        if template is None:
            raise IllegalActionError(RULE_FORM, f"not a werewolf action: {action!r}")
        text = _text_of(action)
        if not isinstance(text, str) or len(text) > self.options.max_text_length:
            raise IllegalActionError(
                RULE_TEXT, f"text must be a string of at most {self.options.max_text_length} characters"
            )
        if template in self._legal(template.actor):
            return with_text(template, text) if text else template
        rule, message = self._diagnose(template)
        raise IllegalActionError(rule, message)

    def _fast_legal(self, action: Action, stage: Stage) -> bool:
        """The common actions of a game, checked directly (the same rules as the enumeration).

        False means "not decided here": the full check runs (it accepts or names the rule).
        """
        kind = type(action)
        actor = action.actor
        if type(actor) is not int or not 1 <= actor <= 9:
            return False
        players = self.players
        if players[actor].L != _LIFE_ALIVE:
            return False
        limit = self.options.max_text_length
        if kind is Speak:
            text = action.text  # type: ignore[union-attr]
            return (
                type(text) is str
                and len(text) <= limit
                and stage is _STAGE_DISCUSSION
                and not self._responses
                and actor == self.current_speaker()
            )
        if kind is Vote:
            target = action.target  # type: ignore[union-attr]
            reason = action.reason  # type: ignore[union-attr]
            return (
                (stage is _STAGE_VOTE or stage is _STAGE_RUNOFF)
                and type(target) is int
                and type(reason) is str
                and len(reason) <= limit
                and actor not in self._votes
                and target != actor
                and target in self._candidates
                and players[target].L == _LIFE_ALIVE
            )
        if kind is Claim or kind is StateResult or kind is RequestClaim:
            return self._fast_claim_legal(action, stage)  # type: ignore[arg-type]
        if kind is Decline:
            text = action.text  # type: ignore[union-attr]
            return (
                type(text) is str
                and len(text) <= limit
                and stage is _STAGE_DISCUSSION
                and bool(self._responses)
                and self._responses[0] == actor
                and self._response_role != players[actor].R
            )
        if stage is not _STAGE_NIGHT or kind not in (Attack, Divine, Guard):
            return False
        target = action.target  # type: ignore[union-attr]
        if type(target) is not int or not 1 <= target <= 9 or players[target].L != _LIFE_ALIVE:
            return False
        role = players[actor].R
        if kind is Attack:
            return (
                role == _ROLE_WEREWOLF
                and self._attack_tonight
                and actor not in self._attack_proposals
                and players[target].R != _ROLE_WEREWOLF
            )
        if kind is Divine:
            return role == _ROLE_SEER and target != actor and _ABILITY_DIVINE not in self.records
        return role == _ROLE_BODYGUARD and target != actor and _ABILITY_GUARD not in self.records

    def _fast_claim_legal(self, action: Claim | StateResult | RequestClaim, stage: Stage) -> bool:
        """Claim / StateResult / RequestClaim checked by the rules the enumeration applies."""
        seat = action.actor
        text = action.text
        if (
            stage is not _STAGE_DISCUSSION
            or seat != self._speaker
            or type(text) is not str
            or len(text) > self.options.max_text_length
        ):
            return False
        role = action.role if not isinstance(action, StateResult) else self.claims.get(seat)
        if type(role) is not Role:
            return False
        if isinstance(action, RequestClaim):
            wanted = _ROLE_SEER if self.phase.day == 1 else _ROLE_MEDIUM
            return not self._responses and role is wanted and role not in self._requested_today
        target, colour = action.target, action.colour
        if target is not None and type(target) is not int:
            return False
        if colour is not None and type(colour) is not Colour:
            return False
        if isinstance(action, StateResult):
            if self._responses or role not in (_ROLE_SEER, _ROLE_MEDIUM):
                return False
            return (target, colour) in self._result_options(seat, role, False)
        forced = bool(self._responses)
        if forced and role is not self._response_role:
            return False
        if seat in self.claims or not self.may_claim(seat, role):
            return False
        if (target is None) != (colour is None):
            return False
        if role is _ROLE_BODYGUARD:
            return target is None
        if target is None:
            day = self.phase.day
            return not (forced and (role is _ROLE_SEER or any(d < day for d, _ in self.executions)))
        return (target, colour) in self._result_options(seat, role, forced)

    def _diagnose(self, action: Action) -> tuple[str, str]:
        """Name the rule an illegal action breaks (called only when it is not legal)."""
        seat = action.actor
        name = type(action).__name__
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in SEATS:
            return RULE_SEAT, f"no such seat: {seat!r}"
        for field in ("target",):
            value = getattr(action, field, None)
            if value is not None and (not isinstance(value, int) or value not in SEATS):
                return RULE_SEAT, f"no such target seat: {value!r}"
        stage = self.stage
        if isinstance(action, ChooseRole):
            if stage is not _STAGE_CHOOSE_ROLE:
                return RULE_ROLE_CHOICE, "P1's role is already fixed"
            if seat != HUMAN_SEAT:
                return RULE_ROLE_CHOICE, "only P1 chooses a role"
            return RULE_ROLE_CHOICE, f"not a role number 1..6: {action.role!r}"
        if stage in (_STAGE_CHOOSE_ROLE, _STAGE_DEAL):
            return RULE_PHASE, f"{name} before the roles are dealt"
        if self.players[seat].L != _LIFE_ALIVE:
            return RULE_DEAD_ACT, f"P{seat} is dead"
        role = Role(self.players[seat].R)
        if isinstance(action, (Speak, Claim, StateResult, RequestClaim, Decline)):
            return self._diagnose_discussion(action, seat, role)
        if isinstance(action, Vote):
            if stage not in (_STAGE_VOTE, _STAGE_RUNOFF):
                return RULE_PHASE, f"no vote during {stage.value}"
            if seat in self._votes:
                return RULE_VOTE_ONCE, f"P{seat} has already voted"
            if action.target == seat:
                return RULE_VOTE, "no self-vote"
            if not self.is_alive(action.target):
                return RULE_VOTE, f"P{action.target} is dead"
            if stage is _STAGE_RUNOFF:
                return RULE_RUNOFF, f"P{action.target} is not in the runoff {list(self._candidates)}"
            return RULE_VOTE, "not a valid vote"
        if isinstance(action, Divine) and stage is _STAGE_PRE_DIVINATION:
            if role is not _ROLE_SEER:
                return RULE_ROLE_ABILITY, "only the 占い師 divines"
            if action.target == seat:
                return RULE_DIVINE, "the 占い師 divines another player"
            return RULE_DIVINE, "the 事前占い is already done"
        if stage is not _STAGE_NIGHT:
            return RULE_PHASE, f"{name} only at night (now: {stage.value})"
        if isinstance(action, Attack):
            if role is not _ROLE_WEREWOLF:
                return RULE_ROLE_ABILITY, "only a 人狼 attacks"
            if not self._attack_tonight:
                return RULE_ATTACK_FIRST, "no attack tonight: nobody has been executed yet"
            if seat in self._attack_proposals:
                return RULE_ATTACK_DEAD, f"P{seat} has already chosen tonight's victim"
            if not self.is_alive(action.target):
                return RULE_ATTACK_DEAD, f"P{action.target} is dead"
            return RULE_ATTACK_WOLF, f"P{action.target} is a 人狼"
        if isinstance(action, Divine):
            if role is not _ROLE_SEER:
                return RULE_ROLE_ABILITY, "only the 占い師 divines"
            if _ABILITY_DIVINE in self.records:
                return RULE_DIVINE, "already divined tonight"
            if action.target == seat:
                return RULE_DIVINE, "the 占い師 divines another player"
            return RULE_DIVINE, f"P{action.target} is dead"
        if isinstance(action, Guard):
            if role is not _ROLE_BODYGUARD:
                return RULE_ROLE_ABILITY, "only the 狩人 guards"
            if _ABILITY_GUARD in self.records:
                return RULE_GUARD, "already guarded tonight"
            if action.target == seat:
                return RULE_GUARD, "the 狩人 never guards itself"
            return RULE_GUARD, f"P{action.target} is dead"
        return RULE_FORM, f"{name} is not legal now"

    def _diagnose_discussion(self, action: Action, seat: int, role: Role) -> tuple[str, str]:
        name = type(action).__name__
        if self.stage is not _STAGE_DISCUSSION:
            return RULE_PHASE, f"{name} only during the discussion (now: {self.stage.value})"
        speaker = self.current_speaker()
        if seat != speaker:
            return RULE_TURN, f"it is P{speaker}'s turn, not P{seat}'s"
        if isinstance(action, Claim):
            if action.role not in CLAIMABLE_ROLES:
                return RULE_CO_ROLE, f"cannot claim {action.role!r}"
            if seat in self.claims:
                return RULE_CO_ONCE, f"P{seat} already claimed {self.claims[seat].label}"
            if self._responses and action.role is not self._response_role:
                return RULE_CO_REQUEST, "answer the CO要求 with the requested role or decline"
            if not self.may_claim(seat, action.role):
                if role is _ROLE_VILLAGER:
                    return RULE_CO_VILLAGER, "a 村人 may not claim a role"
                if role is _ROLE_MADMAN:
                    return RULE_CO_MADMAN, "the 狂人 may not claim under this table's options"
                return RULE_CO_OTHER_ROLE, f"a {role.label} may claim only {role.label}"
            return RULE_CO_RESULT, "that result cannot be stated with this claim"
        if isinstance(action, Decline):
            if not self._responses:
                return RULE_CO_REQUEST, "nothing to decline: no CO要求 is being answered"
            return RULE_CO_FORCED, f"the real {role.label} must come out"
        if self._responses:
            return RULE_CO_FORCED, "answer the CO要求 first: come out or decline"
        if isinstance(action, RequestClaim):
            return RULE_CO_REQUEST, f"cannot request {action.role!r} CO on day {self.phase.day} (or again)"
        if isinstance(action, StateResult):
            if self.claims.get(seat) not in (_ROLE_SEER, _ROLE_MEDIUM):
                return RULE_RESULT, "only a claimed 占い師/霊媒師 states results"
            return RULE_CO_RESULT, "that result cannot be stated"
        return RULE_FORM, f"{name} is not legal now"

    # ------------------------------------------------------------------ apply

    def apply(self, action: Action) -> list[PublicEntry]:
        """Play ``action``; return the public log entries it produced.

        Raises:
            IllegalActionError: the action is not legal now (``rule`` says why); nothing changed.
            GameOverError: the game has ended.
        """
        kind = type(action)
        if kind is Speak:
            done = self._apply_speak(action)  # type: ignore[arg-type]
            if done is not None:
                return done
        elif kind is Vote:
            done = self._apply_vote(action)  # type: ignore[arg-type]
            if done is not None:
                return done
        action = self._check(action)
        self._version += 1
        start = len(self.public_log)
        seat = action.actor
        if isinstance(action, ChooseRole):
            self.players[seat].R = int(action.role)
            self.stage = _STAGE_DEAL
        elif isinstance(action, Vote):
            self._votes[seat] = action
            self.private_logs[seat].append(_taken(self.phase.day, "vote", action.target))
        elif isinstance(action, Attack):
            self._apply_attack(action)
        elif isinstance(action, Divine):
            self.records[_ABILITY_DIVINE] = _record(_ABILITY_DIVINE, seat, action.target)
            self.players[seat].U = 1
            self.private_logs[seat].append(_taken(self.phase.day, "divine", action.target))
        elif isinstance(action, Guard):
            self.records[_ABILITY_GUARD] = _record(_ABILITY_GUARD, seat, action.target)
            self.players[seat].U = 1
            self.private_logs[seat].append(_taken(self.phase.day, "guard", action.target))
        else:
            self._apply_discussion(action)
        return self.public_log[start:]

    def _apply_speak(self, action: Speak) -> list[PublicEntry] | None:
        """The commonest action, checked and applied in one go (the simulation's hot path).

        Returns None to hand anything unusual to the general path (which accepts it or names
        the rule it breaks): the rules are the same as :meth:`_fast_legal`'s.
        """
        actor = action.actor
        text = action.text
        if (
            type(actor) is not int
            or actor != self._speaker  # the speaker is always a living seat 1..9
            or self.stage is not _STAGE_DISCUSSION
            or self._responses
            or type(text) is not str
            or len(text) > self.options.max_text_length
        ):
            return None
        self._version += 1
        day = self.phase.day
        entry = _PASSES.get((day, actor)) if not text else None  # _speech(), its common case inlined
        if entry is None:
            entry = _speech(day, actor, text)
        self.public_log.append(entry)
        index = self._turn_index = self._turn_index + 1
        turns = self._turns
        if index < len(turns) and self._alive[turns[index]]:
            self._speaker = turns[index]
        else:
            self._find_speaker()
        return [entry]

    def _apply_vote(self, action: Vote) -> list[PublicEntry] | None:
        """A vote, checked and applied in one go (like :meth:`_apply_speak`)."""
        actor = action.actor
        if type(actor) is not int or not 1 <= actor <= 9:
            return None
        alive = self._alive  # the vote comes after the deal, so these flags are current
        target = action.target
        reason = action.reason
        stage = self.stage
        if (
            (stage is not _STAGE_VOTE and stage is not _STAGE_RUNOFF)
            or type(target) is not int
            or type(reason) is not str
            or len(reason) > self.options.max_text_length
            or not alive[actor]
            or actor in self._votes
            or target == actor
            or target not in self._candidates
            or not alive[target]
        ):
            return None
        self._version += 1
        self._votes[actor] = action
        day = self.phase.day
        # _taken(), its common case inlined
        self.private_logs[actor].append(_TAKEN.get((day, "vote", target)) or _taken(day, "vote", target))
        return []

    def _apply_attack(self, action: Attack) -> None:
        seat = action.actor
        self._attack_proposals[seat] = action.target
        self.players[seat].U = 1
        self.private_logs[seat].append(_taken(self.phase.day, "attack", action.target))
        players = self.players
        wolves = [s for s in self._living if players[s].R == _ROLE_WEREWOLF]
        if all(w in self._attack_proposals for w in wolves):
            # Disagreeing wolves: the human wolf decides if there is one, else the lower seat.
            decider = HUMAN_SEAT if HUMAN_SEAT in self._attack_proposals else min(self._attack_proposals)
            self.records[_ABILITY_ATTACK] = _record(
                _ABILITY_ATTACK, decider, self._attack_proposals[decider]
            )

    def _apply_discussion(self, action: Action) -> None:
        day = self.phase.day
        seat = action.actor
        log = self.public_log
        if isinstance(action, Speak):
            log.append(_speech(day, seat, action.text))
        elif isinstance(action, Claim):
            self.claims[seat] = action.role
            log.append(ClaimMade(day, seat, action.role, action.target, action.colour, action.text))
            if action.target is not None:
                self._stated.setdefault(seat, []).append(action.target)
        elif isinstance(action, StateResult):
            role = self.claims[seat]
            log.append(ResultStated(day, seat, role, action.target, action.colour, action.text))
            self._stated.setdefault(seat, []).append(action.target)
        elif isinstance(action, Decline):
            log.append(_declined(day, seat, action.text))
        elif isinstance(action, RequestClaim):
            log.append(ClaimRequested(day, seat, action.role, action.text))
            self._requested_today.append(action.role)
        if self._responses:
            self._responses.pop(0)
        else:
            self._turn_index += 1
        if isinstance(action, RequestClaim):
            # Everyone alive who has not claimed answers, in seat order after the requester,
            # the requester last: asking everyone keeps who may claim a secret.
            order = [(seat + i - 1) % 9 + 1 for i in range(1, 10)]
            self._responses = [s for s in order if self.is_alive(s) and s not in self.claims]
            self._response_role = action.role
        self._find_speaker()

    # ------------------------------------------------------------------ engine steps

    def advance(self) -> list[PublicEntry]:
        """Run the next engine step; return the public log entries it produced.

        Raises:
            IllegalActionError: somebody still has to act (see :meth:`to_act`); nothing changed.
            GameOverError: the game has ended.
        """
        if self.stage is _STAGE_ENDED:
            raise GameOverError(RULE_AFTER_END, "the game is over")
        waiting = self.to_act()
        if waiting:
            raise IllegalActionError(RULE_PENDING, f"waiting for {', '.join(f'P{s}' for s in waiting)}")
        start = len(self.public_log)
        stage = self.stage
        if stage is _STAGE_DEAL:
            if self.source is None:
                raise IllegalActionError(RULE_DEAL, "ゲーム開始 needs a dice source to shuffle the roles")
            self._version += 1
            self._start(self._deal(self.source))
        elif stage is _STAGE_PRE_DIVINATION:
            self._version += 1
            self._finish_pre_divination()
        elif stage is _STAGE_DISCUSSION:
            self._version += 1
            self._open_vote(self._living, runoff=False)
        elif stage is _STAGE_VOTE or stage is _STAGE_RUNOFF:
            self._version += 1
            self._tally()
        elif stage is _STAGE_EXECUTION:
            self._version += 1
            self._execute()
        elif stage is _STAGE_NIGHT_START:
            self._version += 1
            self._start_night()
        elif stage is _STAGE_NIGHT:
            self._version += 1
            self._morning()
        else:  # CHOOSE_ROLE is always waiting for P1, so this is unreachable
            raise IllegalActionError(RULE_PHASE, f"nothing to advance in {stage.value}")
        return self.public_log[start:]

    def _deal(self, source: DiceSource) -> list[Role]:
        """ゲーム開始 ①②: drop one of P1's role, Fisher-Yates the other eight with the source."""
        human = Role(self.players[HUMAN_SEAT].R)
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
            record.R, record.L, record.U = int(role), _LIFE_ALIVE, 0
        wolves = tuple(s for s in SEATS if roles[s - 1] is _ROLE_WEREWOLF)
        for seat in SEATS:
            role = roles[seat - 1]
            partners = tuple(w for w in wolves if w != seat) if role is _ROLE_WEREWOLF else ()
            self.private_logs[seat].append(_shared(RoleDealt, 1, role, partners))
        self.phase = PhaseRecord(1, _TIMEOFDAY_DAY, _STEP_BEFORE_START)
        self._refresh_alive()
        self.public_log.append(_shared(GameStarted, 1))
        self.stage = _STAGE_PRE_DIVINATION

    def _finish_pre_divination(self) -> None:
        record = self.records.pop(_ABILITY_DIVINE)
        colour = _COLOUR_OF_ROLE[self.players[record.T].R]
        self._divine_results.append((1, record.T, colour))
        self.private_logs[record.S].append(_shared(DivineResult, 1, record.T, colour, True))
        self.public_log.append(_shared(PreDivinationDone, 1))
        self._start_discussion()

    def _start_discussion(self) -> None:
        day = self.phase.day
        self.phase.T, self.phase.P = _TIMEOFDAY_DAY, _STEP_DISCUSSION
        self.stage = _STAGE_DISCUSSION
        # the living seats in seat order, starting at P(day)
        start = (day - 1) % 9 + 1
        living = [s for s in self._living if s >= start] + [s for s in self._living if s < start]
        self._turns = living * self.options.discussion_rounds
        self._turn_index = 0
        self._responses = []
        self._response_role = None
        self._requested_today = []
        self._find_speaker()
        self.public_log.append(_shared(DiscussionStarted, day))

    def _open_vote(self, candidates: tuple[int, ...], runoff: bool) -> None:
        self.phase.P = _STEP_VOTE
        self.stage = _STAGE_RUNOFF if runoff else _STAGE_VOTE
        self._candidates = candidates
        self._votes = {}
        self.public_log.append(_shared(VotingOpened, self.phase.day, runoff, candidates))

    def _tally(self) -> None:
        day = self.phase.day
        runoff = self.stage is _STAGE_RUNOFF
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
        cast = tuple([_cast_vote(v) for v in votes])
        self._votes = {}
        if len(top) == 1:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "execute"))
            self._candidates = top
            self.stage = _STAGE_EXECUTION
        elif not runoff:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "runoff"))
            self._open_vote(top, runoff=True)
        else:
            self.public_log.append(VoteTally(day, runoff, cast, ordered, top, "no_execution"))
            self.public_log.append(_shared(NoExecution, day))
            self._candidates = ()
            self._executed_today = None
            if not self._win_check():
                self.stage = _STAGE_NIGHT_START

    def _execute(self) -> None:
        seat = self._candidates[0]
        day = self.phase.day
        self.phase.P = _STEP_EXECUTION
        self.players[seat].L = _LIFE_DEAD  # R and U unchanged
        self._refresh_alive()
        self.executions.append((day, seat))
        self._executed_today = seat
        self._candidates = ()
        self.public_log.append(_shared(Executed, day, seat))
        if not self._win_check():
            self.stage = _STAGE_NIGHT_START

    def _start_night(self) -> None:
        self.phase.T, self.phase.P = _TIMEOFDAY_NIGHT, _STEP_NIGHT_ACTIONS
        for record in self.players[1:]:
            if record.L == _LIFE_ALIVE:
                record.U = 0
        self.records = {}
        self._attack_proposals = {}
        self._attack_tonight = bool(self.executions) or not self.options.attack_needs_execution
        self.stage = _STAGE_NIGHT
        self.public_log.append(_shared(NightStarted, self.phase.day))

    def _morning(self) -> None:
        """CMD_霊媒 then CMD_朝結果, in the document's order."""
        players = self.players
        night = self.phase.day
        # CMD_霊媒: a living 霊媒師 learns the colour of the player executed that day.
        medium = self._seat_of(_ROLE_MEDIUM)
        if self._executed_today is not None and players[medium].L == _LIFE_ALIVE:
            target = self._executed_today
            colour = _COLOUR_OF_ROLE[players[target].R]
            self.records[_ABILITY_MEDIUM] = _record(_ABILITY_MEDIUM, medium, target, int(colour))
            players[medium].U = 1
            self._medium_results.append((night, target, colour))
        day = night + 1
        self.phase.day, self.phase.T, self.phase.P = day, _TIMEOFDAY_DAY, _STEP_MORNING
        # 1. the night's abilities
        divine = self.records.get(_ABILITY_DIVINE)
        if divine is not None:
            colour = _COLOUR_OF_ROLE[players[divine.T].R]
            self.records[_ABILITY_DIVINE] = _record(divine.A, divine.S, divine.T, int(colour))
            self._divine_results.append((day, divine.T, colour))
            self.private_logs[divine.S].append(_shared(DivineResult, day, divine.T, colour, False))
        medium_record = self.records.get(_ABILITY_MEDIUM)
        if medium_record is not None:
            self.private_logs[medium_record.S].append(
                _shared(MediumResult, day, night, medium_record.T, _COLOURS[medium_record.V])
            )
        attack = self.records.get(_ABILITY_ATTACK)
        guard = self.records.get(_ABILITY_GUARD)
        guarded = attack is not None and guard is not None and guard.T == attack.T
        if guard is not None:
            value = _RECORDVALUE_SUCCESS if guarded else _RECORDVALUE_FAILURE
            self.records[_ABILITY_GUARD] = _record(guard.A, guard.S, guard.T, value)
            self.private_logs[guard.S].append(_shared(GuardResolved, day, guard.T, guarded))
        # 2.-3. the attack and its victim
        victim: int | None = None
        if attack is not None:
            value = _RECORDVALUE_FAILURE if guarded else _RECORDVALUE_SUCCESS
            self.records[_ABILITY_ATTACK] = _record(attack.A, attack.S, attack.T, value)
            if not guarded:
                victim = attack.T
                players[victim].L = _LIFE_DEAD
                self._refresh_alive()
                self.victims.append((day, victim))
            resolved = _shared(AttackResolved, day, attack.T, attack.S, not guarded)
            for wolf in SEATS:
                if players[wolf].R == _ROLE_WEREWOLF:
                    self.private_logs[wolf].append(resolved)
        # 4. the announcement (5. 【公開情報】 is rendered from the public view)
        self.public_log.append(_shared(MorningReport, day, victim))
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
            if record.L == _LIFE_ALIVE:
                if record.R == _ROLE_WEREWOLF:
                    wolves += 1
                else:
                    humans += 1  # the 狂人 counts as a human
        if wolves == 0:
            self.winner = _TEAM_VILLAGE
        elif wolves >= humans:
            self.winner = _TEAM_WEREWOLF
        else:
            return False
        self.phase.P = _STEP_ENDED
        self.stage = _STAGE_ENDED
        self._responses = []
        self.public_log.append(
            GameEnded(
                self.phase.day,
                self.winner,
                tuple(s for s in SEATS if self.players[s].L == _LIFE_ALIVE),
                tuple(s for s in SEATS if self.players[s].L != _LIFE_ALIVE),
                tuple((s, Role(self.players[s].R)) for s in SEATS),
            )
        )
        return True

    def _seat_of(self, role: Role) -> int:
        for seat in SEATS:
            if role == self.players[seat].R:
                return seat
        raise LookupError(role)  # pragma: no cover - the composition has every role

    # ------------------------------------------------------------------ serialisation

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON data (GM knowledge: every secret is in here)."""
        return {
            "options": self.options.model_dump(mode="json"),
            "names": {str(k): v for k, v in self.names.items()},
            "players": [asdict(p) for p in self.players[1:]],
            "phase": asdict(self.phase),
            "stage": self.stage.value,
            "records": {a.name: asdict(r) for a, r in sorted(self.records.items())},
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
            "public_log": [_entry_dict(e) for e in self.public_log],
            "private_logs": {str(s): [_entry_dict(e) for e in log] for s, log in self.private_logs.items()},
        }

    def state_hash(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_dict`."""
        text = json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry_dict(entry: object) -> dict[str, Any]:
    return asdict(entry)  # type: ignore[call-overload, no-any-return]


def _text_of(action: Action) -> object:
    if isinstance(action, Vote):
        return action.reason
    return getattr(action, "text", "")


def _seat_value(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(value)
    return int(value)


def _optional_seat(value: object) -> int | None:
    return None if value is None else _seat_value(value)


def _template(action: object) -> Action | None:
    """The action with its free text emptied and its numbers normalised to the enums, or
    None when it is not an action at all (a wrong type in a field, an unknown role...)."""
    try:
        if isinstance(action, Vote):
            return Vote(_seat_value(action.actor), _seat_value(action.target))
        if isinstance(action, Speak):
            return Speak(_seat_value(action.actor))
        if isinstance(action, Claim):
            colour = None if action.colour is None else Colour(_seat_value(action.colour))
            role = Role(_seat_value(action.role))
            return Claim(_seat_value(action.actor), role, _optional_seat(action.target), colour)
        if isinstance(action, StateResult):
            return StateResult(
                _seat_value(action.actor), _seat_value(action.target), Colour(_seat_value(action.colour))
            )
        if isinstance(action, RequestClaim):
            return RequestClaim(_seat_value(action.actor), Role(_seat_value(action.role)))
        if isinstance(action, Decline):
            return Decline(_seat_value(action.actor))
        if isinstance(action, ChooseRole):
            return ChooseRole(_seat_value(action.actor), Role(_seat_value(action.role)))
        if isinstance(action, Attack):
            return Attack(_seat_value(action.actor), _seat_value(action.target))
        if isinstance(action, Divine):
            return Divine(_seat_value(action.actor), _seat_value(action.target))
        if isinstance(action, Guard):
            return Guard(_seat_value(action.actor), _seat_value(action.target))
    except (TypeError, ValueError):
        return None
    return None
