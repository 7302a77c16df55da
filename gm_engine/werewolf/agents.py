"""Offline players: deterministic rule-based agents for every role, seeded through a DiceSource.

They make the game playable without any model (``gm werewolf simulate``, the built-in offline
players of a session). An agent sees only its :class:`~gm_engine.werewolf.views.Observation`
(the same information as its :class:`~gm_engine.werewolf.views.PlayerView`) and the legal
actions it is offered, and returns one of them with its speech or vote reason filled in::

    agent = OfflineAgent(seat, source)
    action = agent.choose(observe(game, seat), game.legal_actions(seat))
    game.apply(action)

How they play (a sensible table, not a strong one):

* Everyone keeps a public suspicion score per seat: stated 黒 / 白 from claimed 占い師 (weighted
  by how contested the claim is), 霊媒 results that contradict a 占い師, counter-claims, and a
  little personal noise. They vote for the most suspected seat and say why.
* 占い師: comes out on day 1 (always when asked) with the 事前占い result, then states every
  result; divines the most suspected seat it has no result for. 霊媒師: comes out when asked or
  once it has a result, and states them. 狩人: guards the most trusted 占い師 claimant, else a
  霊媒師 claimant, else a trusted seat; never claims.
* 村人: asks 「占い師は名乗り出ろ」 / 「霊媒師は名乗り出ろ」 when nobody has come out.
* 人狼: one of the pair may fake 占い師 (or 霊媒師 when asked), giving 黒 to a villager; they never
  vote for the partner, and attack claimed 占い師 / 霊媒師 / 狩人 first. 狂人: often fakes
  占い師 with a 黒 on somebody it hopes is village.
* Breaking stalemates (a tied vote, a guard that keeps succeeding), as a sensible table does:
  in a 決選投票, and on the day after a day without execution, the village concentrates its
  votes on one public focus: the candidate with the most votes in the last tally, then the
  most publicly suspected, then the first in today's speaking order (all public, so every
  villager finds the same seat; what a seat knows better, e.g. its own 占い result, still
  wins). A 人狼 joins that bandwagon when the focus is a villager and splits the vote when it
  is a wolf (the 狂人, who knows no wolf, votes like the village). The wolves remember their
  failed attacks: after one failure on a seat they switch to another 60% of the time, after two
  in a row they always do, whenever there is another seat to attack.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import compress
from operator import add
from typing import Protocol

from gm_engine.dice.source import DiceSource
from gm_engine.werewolf.actions import (
    Action,
    Attack,
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
from gm_engine.werewolf.interning import interned, shared_get
from gm_engine.werewolf.log import (
    AttackResolved,
    ClaimMade,
    ClaimRequested,
    DivineResult,
    Executed,
    MediumResult,
    MorningReport,
    PublicEntry,
    ResultStated,
    VoteTally,
)
from gm_engine.werewolf.records import (
    BLACK,
    BODYGUARD,
    MADMAN,
    MEDIUM,
    ROLES,
    SEATS,
    SEER,
    VILLAGER,
    WEREWOLF,
    WHITE,
    Colour,
    Role,
)
from gm_engine.werewolf.views import Observation

_BLACK_WEIGHT = 12.0  # a stated 黒, times the trust in its speaker
_WHITE_WEIGHT = -7.0  # a stated 白
_RIVAL_WEIGHT = 5.0  # a contested claim, times the distrust
# The pull of the public focus when the village must concentrate its votes: far above the
# personal noise and the spread of trust (a few points), far below a seat's own 占い / 霊媒
# result (100), so only what a seat really knows makes it vote away from the focus.
_FOCUS_WEIGHT = 20.0
_QUIET_ROLES = frozenset((VILLAGER, BODYGUARD, WEREWOLF))
_RELEVANT = frozenset(("claim", "result_stated", "executed", "morning", "vote_tally", "claim_requested"))
# The daily drift of first impressions: on day d the seats 1 + (3i + d) % 9 (i = 0, 1, 2) move
# by the base-3 digits of a d27 (0 -> -1, 1 -> 0, 2 -> +1), lowest digit first.
_DRIFT_SEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(1 + (3 * i + day) % 9 for i in range(3)) for day in range(9)
)
_DRIFT_STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple((drift // 3**i) % 3 - 1 for i in range(3)) for drift in range(27)
)

# The actions every agent says the same way, shared (frozen, so sharing is safe): a pass, a
# plain "no" to a CO要求 and the night actions ([actor][target]).
_PASSES: tuple[Speak, ...] = tuple(Speak(seat) for seat in range(10))
_DECLINES: tuple[Decline, ...] = tuple(Decline(seat, "私は名乗り出ません。") for seat in range(10))
_ATTACKS: tuple[tuple[Attack, ...], ...] = tuple(tuple(Attack(s, t) for t in range(10)) for s in range(10))
_DIVINES: tuple[tuple[Divine, ...], ...] = tuple(tuple(Divine(s, t) for t in range(10)) for s in range(10))
_GUARDS: tuple[tuple[Guard, ...], ...] = tuple(tuple(Guard(s, t) for t in range(10)) for s in range(10))


class Agent(Protocol):
    """Anything that picks one of the legal actions for its seat."""

    seat: int

    def choose(self, observation: Observation, legal: Sequence[Action]) -> Action:
        """Return one of ``legal`` (text may be filled in with ``with_text``)."""
        ...


class PublicNotes:
    """A digest of the public log: claims, stated results, executions, victims, requests.

    Built from public entries only, so the agents of one table may share it.
    """

    __slots__ = (
        "_medium_colours",
        "_scores",
        "_scores_version",
        "_trust",
        "_trust_version",
        "claims",
        "executed",
        "last_counts",
        "last_outcome",
        "last_statement",
        "medium_claimants",
        "requested",
        "seen",
        "seer_claimants",
        "stated",
        "targets_by",
        "version",
        "victims",
    )

    def __init__(self) -> None:
        self.seen = 0
        self.version = 0  # bumped by every fact that can move suspicion
        # roles and colours are kept as plain ints (records.SEER, BLACK, ...): the agents compare
        # them hundreds of times a game, and an int compares faster than an IntEnum member
        self.claims: dict[int, int] = {}
        self.seer_claimants: list[int] = []
        self.medium_claimants: list[int] = []
        # (speaker, role, target, colour) of every stated result
        self.stated: list[tuple[int, int, int, int]] = []
        self.executed: list[int] = []
        self.victims: list[int] = []
        self.last_counts: dict[int, int] = {}
        self.last_outcome = ""  # the outcome of the last tally ("execute", "runoff", "no_execution")
        self.requested: dict[Role, int] = {}
        self.targets_by: dict[int, set[int]] = {}
        self.last_statement: dict[int, int] = {}
        self._trust: dict[int, float] = {}
        self._trust_version = -1
        self._medium_colours: dict[int, list[int]] = {}  # target -> stated 霊媒 colours (per version)
        self._scores: list[float] = []
        self._scores_version = -1

    def update(self, log: Sequence[PublicEntry]) -> None:
        """Digest the entries of ``log`` not seen yet."""
        relevant = _RELEVANT
        for entry in log[self.seen :]:
            if entry.kind not in relevant:
                continue
            if isinstance(entry, ClaimMade):
                self.version += 1
                self.claims[entry.speaker] = int(entry.role)
                if entry.role == SEER:
                    self.seer_claimants.append(entry.speaker)
                elif entry.role == MEDIUM:
                    self.medium_claimants.append(entry.speaker)
                if entry.target is not None and entry.colour is not None:
                    self._statement(entry.speaker, entry.role, entry.target, entry.colour, entry.day)
            elif isinstance(entry, ResultStated):
                self.version += 1
                self._statement(entry.speaker, entry.role, entry.target, entry.colour, entry.day)
            elif isinstance(entry, Executed):
                self.executed.append(entry.seat)
            elif isinstance(entry, MorningReport) and entry.victim is not None:
                self.version += 1
                self.victims.append(entry.victim)
            elif isinstance(entry, VoteTally):
                self.last_counts.clear()
                self.last_counts.update(entry.counts)
                self.last_outcome = entry.outcome
            elif isinstance(entry, ClaimRequested):
                self.requested[entry.role] = entry.day
        self.seen = len(log)

    def public_scores(self) -> list[float]:
        """Suspicion from public facts alone, with public trust (cached per version; read only)."""
        if self._scores_version == self.version:
            return self._scores
        scores = [0.0] * 10
        for speaker, _claimed, target, colour in self.stated:
            weight = self.public_trust(speaker)
            scores[target] += weight * (_BLACK_WEIGHT if colour == BLACK else _WHITE_WEIGHT)
        for group in (self.seer_claimants, self.medium_claimants):
            if len(group) > 1:
                for claimant in group:
                    scores[claimant] += _RIVAL_WEIGHT * (1.0 - self.public_trust(claimant))
        guards = [s for s, r in self.claims.items() if r == BODYGUARD]
        if len(guards) == 1:
            scores[guards[0]] -= 2
        self._scores, self._scores_version = scores, self.version
        return scores

    def public_trust(self, claimant: int) -> float:
        """How far the public record supports a 占い師 / 霊媒師 claimant (cached per version)."""
        if self._trust_version != self.version:
            self._trust_version = self.version
            self._trust.clear()
            self._medium_colours.clear()
            for _speaker, claimed, target, colour in self.stated:
                if claimed == MEDIUM:
                    self._medium_colours.setdefault(target, []).append(colour)
        cached = self._trust.get(claimant)
        if cached is not None:
            return cached
        rivals = self.seer_claimants if self.claims.get(claimant, 0) == SEER else self.medium_claimants
        trust = 1.0 / max(1, len(rivals))
        medium_colours = self._medium_colours
        factor = 0.3 if len(self.medium_claimants) == 1 else 0.7
        for speaker, claimed, target, colour in self.stated:
            if speaker != claimant or claimed != SEER:
                continue
            # a 占い師 whose 黒 a medium found 白 (or the reverse) is caught out
            for medium_colour in medium_colours.get(target, ()):
                if medium_colour is not colour:
                    trust *= factor
            if colour == BLACK and target in self.victims:
                trust *= 0.2  # the wolves do not attack a wolf
        self._trust[claimant] = trust
        return trust

    def _statement(self, speaker: int, role: Role, target: int, colour: Colour, day: int) -> None:
        self.stated.append((speaker, int(role), target, int(colour)))
        self.targets_by.setdefault(speaker, set()).add(target)
        self.last_statement[speaker] = day


class OfflineAgent:
    """A rule-based player for one seat; every random choice is a die of ``source``."""

    __slots__ = (
        "_cache",
        "_cache_key",
        "_claims",
        "_executed",
        "_failed_attacks",
        "_knowledge",
        "_last_counts",
        "_medium_claimants",
        "_noise",
        "_noise_day",
        "_notes",
        "_own",
        "_partners",
        "_plan_fake",
        "_private_seen",
        "_quiet_day",
        "_reasons",
        "_request_day",
        "_requested",
        "_role",
        "_seer_claimants",
        "_speech_key",
        "_speech_text",
        "_stated",
        "_trust_key",
        "_trusts",
        "_victims",
        "_vote_cache",
        "fake_chance",
        "seat",
        "source",
        "talk",
    )

    def __init__(
        self,
        seat: int,
        source: DiceSource,
        fake_chance: int = 50,
        talk: bool = True,
        notes: PublicNotes | None = None,
    ) -> None:
        """``fake_chance``: percent chance that a 人狼 / 狂人 plans to fake a claim this game.

        ``notes``: a digest of the public log shared by the agents of one table (it holds public
        facts only, so sharing it tells nobody anything); by default each agent keeps its own.

        ``talk=False`` leaves free talk empty (a pass): the choices, every die and the vote
        reasons are the same, only the speech is not composed (the simulation's hot path).
        """
        self.seat = seat
        self.source = source
        self.fake_chance = fake_chance
        self.talk = talk
        self._role: int | None = None  # a plain int, as in PublicNotes
        self._partners: tuple[int, ...] = ()
        self._noise: list[int] = []
        self._plan_fake: Role | None = None
        notes = PublicNotes() if notes is None else notes
        self._notes = notes
        # aliases of the shared digest (mutated in place there, never rebound)
        self._claims = notes.claims
        self._seer_claimants = notes.seer_claimants
        self._medium_claimants = notes.medium_claimants
        self._stated = notes.stated
        self._executed = notes.executed
        self._victims = notes.victims
        self._last_counts = notes.last_counts
        self._requested = notes.requested
        self._own: dict[int, int] = {}  # target -> colour (plain ints)
        self._failed_attacks: dict[int, int] = {}  # a 人狼's consecutive failed attacks per target
        self._private_seen = 0
        self._noise_day = 0
        self._knowledge = 0  # bumped whenever a fact that moves suspicion arrives
        self._cache_key = -1
        self._cache: list[float] = []
        self._trusts: dict[int, float] = {}
        self._trust_key = -1
        self._reasons: dict[tuple[int, int], str] = {}
        self._vote_cache: dict[tuple[int, int], Vote] = {}
        self._request_day = 0
        self._quiet_day = 0
        self._speech_key = (-1, -1)
        self._speech_text = ""

    # ------------------------------------------------------------------ knowledge

    def _update(self, obs: Observation) -> None:
        if obs.day != self._noise_day and obs.stage != "choose_role":
            self._start_day(obs)
        notes = self._notes
        public_log = obs.public_log
        if len(public_log) != notes.seen:
            notes.update(public_log)
        private_log = obs.private_log
        own = self._own
        if len(private_log) != self._private_seen:
            for private in private_log[self._private_seen :]:
                if isinstance(private, (DivineResult, MediumResult)):
                    own[private.target] = int(private.colour)
                elif isinstance(private, AttackResolved):
                    failed = self._failed_attacks
                    if private.killed:
                        failed.clear()
                    else:  # guarded: a 狩人 is on this seat
                        count = failed.get(private.target, 0) + 1
                        failed.clear()
                        failed[private.target] = count
            self._private_seen = len(private_log)
        self._knowledge = notes.version * 64 + len(own)

    def _start_day(self, obs: Observation) -> None:
        """First impressions once the roles are known; then a little drift every day."""
        if self._role is None:
            role = obs.role
            self._role = None if role is None else int(role)
            self._partners = obs.partners
            # one die of 4**9 faces gives the nine base-4 digits of the first impressions
            impressions = self.source.roll(4**9) - 1
            self._noise = [0] + [(impressions >> (2 * i)) & 3 for i in range(9)]
            if self._role in (WEREWOLF, MADMAN):
                leader = self._role == MADMAN or self.seat < min(self._partners, default=10)
                if leader and self.source.roll(100) <= self.fake_chance:
                    self._plan_fake = Role.SEER
        # opinions drift a little every day, so no two days replay the same
        self._noise_day = obs.day
        drift = self.source.roll(27) - 1  # three seats' impressions move by -1, 0 or +1
        noise = self._noise
        cache = self._cache if self._cache_key == self._knowledge else None
        for seat, step in zip(_DRIFT_SEATS[obs.day % 9], _DRIFT_STEPS[drift], strict=True):
            noise[seat] += step
            if cache is not None:  # keep the cached scores in step instead of rebuilding them
                cache[seat] += step

    def _trust(self, claimant: int) -> float:
        """How much this seat believes a 占い師 / 霊媒師 claimant (cached per state of knowledge)."""
        if self._trust_key != self._knowledge:
            self._trusts = {}
            self._trust_key = self._knowledge
        cached = self._trusts.get(claimant)
        if cached is None:
            cached = self._trusts[claimant] = self._compute_trust(claimant)
        return cached

    def _compute_trust(self, claimant: int) -> float:
        if claimant == self.seat:
            return 1.0
        role = self._role
        if claimant in self._partners:
            return 0.0
        if role == SEER and self._claims.get(claimant, 0) == SEER:
            return 0.0  # a rival of the real seer is certainly fake
        if role == MEDIUM and self._claims.get(claimant, 0) == MEDIUM:
            return 0.0
        if claimant in self._own and self._own[claimant] == BLACK:
            return 0.0
        return self._notes.public_trust(claimant)

    def _scores(self, obs: Observation) -> list[float]:
        """Suspicion of each seat (index 0 unused), higher = more likely a 人狼."""
        key = self._knowledge
        if key == self._cache_key:
            return self._cache
        notes = self._notes
        # the table's public suspicion (shared), then what this seat knows better
        scores = list(map(add, notes.public_scores(), self._noise))
        # only these claimants can be trusted differently by this seat than by the table
        role = self._role
        special: Collection[int] = (self.seat,)  # a plain villager's only special claimant is itself
        if self._partners or self._own or role in (SEER, MEDIUM):
            special = {self.seat, *self._partners, *(t for t, c in self._own.items() if c == BLACK)}
            if role in (SEER, MEDIUM):
                special.update(s for s, r in notes.claims.items() if r == role)
        for claimant in special:
            if claimant not in notes.claims:
                continue
            mine, public = self._trust(claimant), notes.public_trust(claimant)
            if mine == public:
                continue
            for speaker, _claimed, target, colour in notes.stated:
                if speaker == claimant:
                    weight = _BLACK_WEIGHT if colour == BLACK else _WHITE_WEIGHT
                    scores[target] += (mine - public) * weight
            group = self._seer_claimants if claimant in self._seer_claimants else self._medium_claimants
            if len(group) > 1 and claimant in group:
                scores[claimant] += _RIVAL_WEIGHT * (public - mine)
        for target, colour in self._own.items():
            scores[target] += 100 if colour == BLACK else -100
        self._cache_key, self._cache = key, scores
        return scores

    def _reason(self, obs: Observation, seat: int) -> str:
        """Why this seat suspects ``seat``, in words (the strongest public ground it has)."""
        key = (self._knowledge, seat)
        reason = self._reasons.get(key)
        if reason is None:
            reason = self._reasons[key] = self._compose_reason(obs, seat)
        return reason

    def _compose_reason(self, obs: Observation, seat: int) -> str:
        if self._own.get(seat, 0) == BLACK:
            return "私の結果で黒だった"
        for speaker, claimed, target, colour in reversed(self._stated):
            if target == seat and colour == BLACK and self._trust(speaker) > 0.0:
                return f"{obs.names[speaker]}さんの{ROLES[claimed].label}結果で黒が出ている"
        group = self._seer_claimants if seat in self._seer_claimants else self._medium_claimants
        if seat in group and len(group) > 1 and self._trust(seat) <= 0.5:
            return "対抗COが出ていて、こちらが偽物に見える"
        return "発言の流れが少し気になる"

    def suspicion(self, obs: Observation) -> tuple[float, ...]:
        """This seat's suspicion of every seat now (index 0 unused; higher = more likely a 人狼).

        The same scores it votes by. Call it after :meth:`choose` has seen ``obs`` (the day's
        first look rolls the day's drift; asking first would move the agent's dice).
        """
        self._update(obs)
        return tuple(self._scores(obs))

    def ground(self, seat: int) -> str:
        """What this seat's suspicion of ``seat`` rests on, as its vote reasons name it:
        ``"own_black"`` (its own result), ``"stated_black"`` (a trusted claimant's 黒),
        ``"counter_claim"`` (a contested claim it doubts) or ``"impression"``."""
        if self._own.get(seat, 0) == BLACK:
            return "own_black"
        for speaker, _claimed, target, colour in reversed(self._stated):
            if target == seat and colour == BLACK and self._trust(speaker) > 0.0:
                return "stated_black"
        group = self._seer_claimants if seat in self._seer_claimants else self._medium_claimants
        if seat in group and len(group) > 1 and self._trust(seat) <= 0.5:
            return "counter_claim"
        return "impression"

    def trusts(self, claimant: int) -> float:
        """How far this seat believes the claims of ``claimant`` (0 .. 1)."""
        return self._trust(claimant)

    def _rank(self, obs: Observation, seats: Sequence[int]) -> list[int]:
        """``seats`` from most to least suspected (ties: lower seat first)."""
        scores = self._scores(obs)
        return sorted(seats, key=lambda s: (-scores[s], s))

    def _top(self, obs: Observation, seats: Sequence[int]) -> int:
        """The most suspected of ``seats`` (ties: lower seat)."""
        # max() keeps the first of equal maxima, so ties go to the earlier (lower) seat
        return max(seats, key=self._scores(obs).__getitem__)

    # ------------------------------------------------------------------ decisions

    def choose(self, observation: Observation, legal: Sequence[Action]) -> Action:
        """Pick one of ``legal`` with its speech / reason filled in.

        Raises:
            ValueError: ``legal`` is empty (nothing to choose).
        """
        obs = observation
        stage = obs.stage
        if (
            stage == "discussion"
            and self._quiet_day == obs.day
            and obs.awaiting_claim is None
            and not self.talk
        ):
            return _PASSES[self.seat]  # a quiet seat's later turns need no new facts
        self._update(observation)
        # The choice set of a vote or a night action is read off the observation (the same
        # rules as the engine's enumeration), so ``legal`` is only looked into when needed.
        if stage == "discussion":
            return self._discuss(obs, legal)
        me = self.seat
        if stage == "vote" or stage == "runoff":
            # the living candidates other than this seat, in order (filter + remove run in C)
            targets = list(filter(obs.alive.__getitem__, obs.candidates))
            if me in targets:
                targets.remove(me)
            return self._vote(obs, targets)
        if stage == "night" or stage == "pre_divination":
            # the other seats, living ones only at night (compress + remove run in C)
            others = list(SEATS) if stage == "pre_divination" else list(compress(SEATS, obs.alive[1:]))
            if me in others:
                others.remove(me)
            role = self._role
            if role == WEREWOLF:
                return self._attack(obs, [t for t in others if t not in self._partners])
            if role == SEER:
                return self._divine(obs, others)
            if role == BODYGUARD:
                return self._guard(obs, others)
        if len(legal) == 0:
            raise ValueError(f"P{self.seat} has no legal action to choose from")
        return legal[self.source.roll(len(legal)) - 1]

    def _vote(self, obs: Observation, targets: list[int]) -> Action:
        partners = self._partners
        candidates = ([t for t in targets if t not in partners] or targets) if partners else targets
        if self._role == MADMAN:
            # the 狂人 protects whoever called the real seer a liar: it votes for the seer claimant
            # that contradicts its own fake claims, else like the village
            rivals = [s for s in self._seer_claimants if s != self.seat and s in candidates]
            if self._plan_fake is not None and rivals:
                target = rivals[0]
                return _vote(self.seat, target, "占い師を騙っている偽物だと思うから")
        runoff = obs.stage == "runoff"
        if runoff or self._notes.last_outcome == "no_execution":
            # A tie, or yesterday's vote ended without execution: the village must concentrate.
            focus = self._focus_order(obs, [*targets, self.seat])[0]
            if partners:
                if focus != self.seat and focus not in partners:
                    return _vote(self.seat, focus, "票が割れないように、まとめるべきだと思うから")
            else:
                scores = self._scores(obs)
                counts = self._last_counts if runoff else {}
                if focus == self.seat:  # it cannot vote for itself: the next in the public order
                    focus = self._focus_order(obs, candidates)[0]
                target = max(
                    candidates,
                    key=lambda s: scores[s] + 3 * counts.get(s, 0) + (_FOCUS_WEIGHT if s == focus else 0.0),
                )
                if target == focus:
                    return _vote(self.seat, target, "票が割れて処刑なしは避けたいので、票を集めるため")
        if runoff:
            # in the 決選投票 the first round's votes weigh: the table converges
            scores = self._scores(obs)
            counts = self._last_counts
            candidates.sort(key=lambda s: (-(scores[s] + 3 * counts.get(s, 0)), s))
            target = candidates[0]
        else:  # the most suspected (ties: the earlier seat, as max() keeps the first maximum)
            target = max(candidates, key=self._scores(obs).__getitem__)
        if self._role == WEREWOLF:
            # a wolf rides the village's suspicion, or pushes a claimant who saw through it
            for speaker, _claimed, stated_target, colour in self._stated:
                if (
                    colour == BLACK
                    and stated_target in (self.seat, *self._partners)
                    and speaker in candidates
                    and speaker not in self._partners
                ):
                    return _vote(self.seat, speaker, "根拠の薄い黒出しで、偽物に見えるから")
        key = (self._knowledge, target)
        vote = self._vote_cache.get(key)
        if vote is None:
            # the vote is cached by the same key as the reason, so compose it directly
            reason = self._compose_reason(obs, target) + "から"
            vote = self._vote_cache[key] = _vote(self.seat, target, reason)
        return vote

    def _focus_order(self, obs: Observation, seats: Sequence[int]) -> list[int]:
        """``seats`` in the table's public order of focus (the same for every seat that sees it).

        Most votes in the last tally, then the most publicly suspected, then today's speaking
        order (P(day) first): public facts only, so the village can agree without talking.
        """
        counts = self._last_counts
        public = self._notes.public_scores()
        day = obs.day
        return sorted(seats, key=lambda s: (-counts.get(s, 0), -public[s], (s - day) % 9))

    def _attack(self, obs: Observation, targets: list[int]) -> Action:
        scores = self._scores(obs)
        failed = self._failed_attacks
        if failed:
            # a guard keeps saving this seat: try another (always after two failures on it)
            # (the dict holds only the last night's target, so this rolls at most one die)
            avoid = [
                t
                for t, count in failed.items()
                if t in targets and (count >= 2 or self.source.roll(100) <= 60)
            ]
            if avoid and len(avoid) < len(targets):
                targets = [t for t in targets if t not in avoid]
        priority: list[int] = []
        for speaker, _claimed, target, colour in self._stated:
            if colour == BLACK and target in (self.seat, *self._partners) and speaker in targets:
                priority.append(speaker)  # it saw us: a real seer
        for role in (SEER, MEDIUM, BODYGUARD):
            priority.extend(s for s, r in self._claims.items() if r == role and s in targets)
        if priority and self.source.roll(100) <= 80:
            return _ATTACKS[self.seat][priority[0]]
        # else the most trusted seat: the village would miss it most
        trusted = sorted(targets, key=lambda s: (scores[s], s))
        return _ATTACKS[self.seat][trusted[0]]

    def _divine(self, obs: Observation, targets: list[int]) -> Action:
        unknown = [t for t in targets if t not in self._own and t not in self._claims] or targets
        ranked = self._rank(obs, unknown)
        pick = ranked[0] if self.source.roll(100) <= 60 else ranked[self.source.roll(len(ranked)) - 1]
        return _DIVINES[self.seat][pick]

    def _guard(self, obs: Observation, targets: list[int]) -> Action:
        seers = sorted((s for s in self._seer_claimants if s in targets), key=lambda s: -self._trust(s))
        if seers and self._trust(seers[0]) >= 0.5:
            return _GUARDS[self.seat][seers[0]]
        mediums = [s for s in self._medium_claimants if s in targets and self._trust(s) >= 0.5]
        if mediums:
            return _GUARDS[self.seat][mediums[0]]
        if seers and self.source.roll(2) == 1:
            return _GUARDS[self.seat][seers[0]]
        trusted = self._rank(obs, targets)[::-1]
        return _GUARDS[self.seat][trusted[0]]

    # ------------------------------------------------------------------ discussion

    def _discuss(self, obs: Observation, legal: Sequence[Action]) -> Action:
        """A discussion turn: decide what to do first, look into ``legal`` only to pick a claim."""
        if self._quiet_day == obs.day and obs.awaiting_claim is None:
            return self._speak(obs)
        role = self._role
        own_claim = self._claims.get(self.seat)
        wanted = obs.awaiting_claim
        if wanted is not None:
            return self._answer(obs, legal, wanted)
        if own_claim is None:
            if role == SEER and (obs.day > 1 or self.source.roll(100) <= 70):
                claims = [a for a in legal if isinstance(a, Claim) and a.role == role]
                if claims:
                    return self._claim_with_best(obs, claims)
            if role == MEDIUM and self._own and self.source.roll(100) <= 60:
                claims = [a for a in legal if isinstance(a, Claim) and a.role == role]
                if claims:
                    return self._claim_with_best(obs, claims)
            if (
                self._plan_fake is not None
                and (obs.day == 1 or self._seer_claimants)
                and not (obs.day == 1 and self.source.roll(100) > 50)
            ):
                fakes = [a for a in legal if isinstance(a, Claim) and a.role == self._plan_fake]
                if fakes:
                    return self._fake_claim(obs, fakes)
        elif own_claim in (SEER, MEDIUM) and self._may_state(obs, own_claim):
            states = [a for a in legal if isinstance(a, StateResult)]
            if states:
                return self._state_best(obs, states) if role == own_claim else self._fake_state(obs, states)
        if self._request_day != obs.day:
            # one decision a day: whether to call for the missing role on this first turn
            self._request_day = obs.day
            if role != WEREWOLF:
                request = Role.SEER if obs.day == 1 else Role.MEDIUM
                if (
                    self._requested.get(request) != obs.day
                    and not (self._seer_claimants if request == SEER else self._medium_claimants)
                    and (request == SEER or self._executed)
                    and self.source.roll(100) <= 60
                ):
                    return RequestClaim(self.seat, request, f"{request.label}は名乗り出てください！")
        if own_claim is not None or (role in _QUIET_ROLES and self._plan_fake is None):
            # Nothing left to decide today but to talk. A claimed seat too: it is never asked
            # to answer a CO要求, and whether it has a result to state cannot change before the
            # morning (its results arrive then; what it stated only grows, one turn at a time).
            self._quiet_day = obs.day
        return self._speak(obs)

    def _may_state(self, obs: Observation, claimed: int) -> bool:
        """Whether this claimant has a result to state now (so the legal list is worth reading)."""
        mine = self._notes.targets_by.get(self.seat, ())
        if claimed == self._role:
            return any(t not in mine for t in self._own)
        # a fake states at most one result a day
        return self._notes.last_statement.get(self.seat, 0) < obs.day

    def _answer(self, obs: Observation, legal: Sequence[Action], wanted: Role) -> Action:
        """Answer a CO要求: the real holder must come out; a liar may; everyone else declines.
        A seat that came out without a result is asked again: it states one, real or fake."""
        role = self._role
        own_claim = self._claims.get(self.seat)
        if own_claim is not None:
            states = [a for a in legal if isinstance(a, StateResult)]
            return self._state_best(obs, states) if role == own_claim else self._fake_state(obs, states)
        if role == wanted:
            return self._claim_with_best(obs, [a for a in legal if isinstance(a, Claim)])
        if role in (WEREWOLF, MADMAN) and (
            self._plan_fake == wanted or (wanted == MEDIUM and self.source.roll(100) <= 15)
        ):
            claims = [a for a in legal if isinstance(a, Claim)]
            if claims:
                self._plan_fake = wanted
                return self._fake_claim(obs, claims)
        return _DECLINES[self.seat]

    def _claim_with_best(self, obs: Observation, claims: Sequence[Claim]) -> Action:
        with_result = [c for c in claims if c.target is not None]
        pool = with_result or list(claims)
        black = [c for c in pool if c.colour == BLACK]
        pick = (black or pool)[-1]
        return with_text(pick, self._claim_text(obs, pick))

    def _state_best(self, obs: Observation, states: Sequence[StateResult]) -> Action:
        black = [s for s in states if s.colour == BLACK]
        pick = (black or list(states))[-1]
        return with_text(pick, f"結果です。{obs.names[pick.target]}さんは{pick.colour.label}でした。")

    def _fake_target(self, obs: Observation, options: Sequence[Claim | StateResult]) -> Claim | StateResult:
        """A fake result: 黒 on a seat the liar wants gone, or 白 on a partner."""
        mine = {(o.target, o.colour): o for o in options if o.target is not None}
        if not mine:
            return options[0]
        avoid = (self.seat, *self._partners)
        rivals = [s for s in self._seer_claimants + self._medium_claimants if s not in avoid]
        living = [t for t in obs.living() if t not in avoid]
        roll = self.source.roll(100)
        wanted: list[tuple[int, int]] = []
        if rivals and roll <= 40:
            wanted.extend((r, BLACK) for r in rivals)
        if self._partners and roll > 75:
            wanted.extend((p, WHITE) for p in self._partners)
        if living:
            pick = living[self.source.roll(len(living)) - 1]
            wanted.append((pick, BLACK if roll <= 65 else WHITE))
        for key in wanted:
            if key in mine:
                return mine[key]
        keys = sorted(mine)
        return mine[keys[self.source.roll(len(keys)) - 1]]

    def _fake_claim(self, obs: Observation, claims: Sequence[Claim]) -> Action:
        with_result = [c for c in claims if c.target is not None]
        pick: Claim | StateResult = self._fake_target(obs, with_result) if with_result else claims[0]
        return with_text(pick, self._claim_text(obs, pick))

    def _fake_state(self, obs: Observation, states: Sequence[StateResult]) -> Action:
        pick = self._fake_target(obs, states)
        if pick.target is None:
            return with_text(pick, "結果です。")
        return with_text(pick, f"結果です。{obs.names[pick.target]}さんは{_colour(pick)}でした。")

    def _claim_text(self, obs: Observation, claim: Claim | StateResult) -> str:
        role = claim.role.label if isinstance(claim, Claim) else "占い師"
        if claim.target is None or claim.colour is None:
            return f"私が{role}です。"
        return f"私が{role}です。{obs.names[claim.target]}さんは{claim.colour.label}でした。"

    def _speak(self, obs: Observation) -> Speak:
        if not self.talk:
            return _PASSES[self.seat]
        text = self._speech(obs)
        return Speak(self.seat, text) if text else _PASSES[self.seat]

    def _speech(self, obs: Observation) -> str:
        if not self.talk:
            return ""
        key = (self._knowledge, obs.day)
        if key != self._speech_key:
            self._speech_key, self._speech_text = key, self._compose_speech(obs)
        return self._speech_text

    def _compose_speech(self, obs: Observation) -> str:
        others = [s for s in obs.living() if s != self.seat and s not in self._partners]
        if not others:
            return "特にありません。"
        top = self._top(obs, others)
        return f"今は{obs.names[top]}さんが気になります。{self._reason(obs, top)}ので。"


def _vote(seat: int, target: int, reason: str) -> Vote:
    """A vote, shared between the games of a process: the agents' reasons are a few set phrases."""
    return shared_get((Vote, seat, target, reason)) or interned(Vote, seat, target, reason)  # type: ignore[return-value]


def _colour(action: Claim | StateResult) -> str:
    return "" if action.colour is None else action.colour.label


def offline_agents(source: DiceSource, fake_chance: int = 50, talk: bool = True) -> dict[int, OfflineAgent]:
    """One offline agent per seat, all drawing from ``source`` and sharing one public digest."""
    notes = PublicNotes()
    return {seat: OfflineAgent(seat, source, fake_chance, talk, notes) for seat in SEATS}
