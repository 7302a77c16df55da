"""Every message the play sessions (werewolf, adventure, roll) and the ``gm`` commands show
the player, one class per message; the texts are in ``ja.toml`` / ``en.toml`` under the key.

Grouped as the data files are: ``cli.*`` (what the commands print around a session),
``roll.*`` (``gm roll`` and the roll session), ``adventure.*``, ``werewolf.*`` (prompts,
help, the player's own screen lines, target hints, readings to confirm, refusals).
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from gm_engine.messages.catalogue import Message

# ---------------------------------------------------------------- cli


class CommandFailed(Message):
    """A command stopped on an error it explains itself: ``gm adventure: …``."""

    key: ClassVar[str] = "cli.command_failed"
    command: str
    error: str


class Interrupted(Message):
    """Ctrl-C, with nothing recorded to go on from."""

    key: ClassVar[str] = "cli.interrupted"


class InterruptedSaved(Message):
    """Ctrl-C in a recorded session: where it is and how to go on."""

    key: ClassVar[str] = "cli.interrupted_saved"
    path: str


class ServerUnreachable(Message):
    """The model server could not be reached (``cause``: the backend's own words)."""

    key: ClassVar[str] = "cli.server_unreachable"
    cause: str


class ServerMisconfigured(Message):
    """The model server is not set up for this game (``cause``: what to change, in the
    diagnosis's words); retrying would not help."""

    key: ClassVar[str] = "cli.server_misconfigured"
    cause: str


class ServerRefused(Message):
    """The model server refused a request."""

    key: ClassVar[str] = "cli.server_refused"
    cause: str


class StoppedUnrecorded(Message):
    """A session stopped by ``reason`` that was not recorded (``--no-record``)."""

    key: ClassVar[str] = "cli.stopped_unrecorded"
    command: str
    reason: str


class StoppedSaved(Message):
    """A session stopped by ``reason`` that can go on with ``gm resume``."""

    key: ClassVar[str] = "cli.stopped_saved"
    command: str
    reason: str
    path: str


class SessionEnded(Message):
    """The last line of a finished play session: its summary and seed."""

    key: ClassVar[str] = "cli.session_ended"
    summary: str
    seed: int


class TranscriptAt(Message):
    """Where the transcript was written."""

    key: ClassVar[str] = "cli.transcript_at"
    path: str


class Resumed(Message):
    """``gm resume``: how much was replayed and how much was added."""

    key: ClassVar[str] = "cli.resumed"
    replayed: int
    new: int
    path: str


class NoTranscripts(Message):
    """``gm replay`` found no file to check."""

    key: ClassVar[str] = "cli.no_transcripts"


class ReplayTotal(Message):
    """``gm replay``'s last line (``milliseconds`` already formatted)."""

    key: ClassVar[str] = "cli.replay_total"
    matched: int
    total: int
    verified: int
    milliseconds: str


class ReplaySignatureMissing(Message):
    """``gm replay --require-signature`` failing: ``missing`` files matched but are not signed
    by a trusted key."""

    key: ClassVar[str] = "cli.replay_signature_missing"
    missing: int


class BadTrustKey(Message):
    """``--trust-key`` given something that is not a whole key as a header names it."""

    key: ClassVar[str] = "cli.bad_trust_key"
    given: str


class UnreadableInput(Message):
    """A terminal line whose bytes are not text (invalid UTF-8): asked again."""

    key: ClassVar[str] = "cli.unreadable_input"


class DiskFull(Message):
    """The transcript could not be written: the disk is full."""

    key: ClassVar[str] = "cli.disk_full"
    cause: str


class StoppedUnresumable(Message):
    """A session stopped by ``reason`` whose transcript cannot be continued."""

    key: ClassVar[str] = "cli.stopped_unresumable"
    command: str
    reason: str
    path: str


class Paused(Message):
    """The player stopped (``/quit``): the summary and how to go on."""

    key: ClassVar[str] = "cli.paused"
    summary: str
    path: str


class PausedUnrecorded(Message):
    """The player stopped an unrecorded session."""

    key: ClassVar[str] = "cli.paused_unrecorded"
    summary: str


class PausedUnresumable(Message):
    """The player stopped, and the transcript cannot be continued."""

    key: ClassVar[str] = "cli.paused_unresumable"
    summary: str
    path: str


class ChooseOneOf(Message):
    """A terminal answer that is not one of the offered choices."""

    key: ClassVar[str] = "cli.choose_one_of"
    choices: str


# ---------------------------------------------------------------- roll (gm roll and the roll session)


class NotACommand(Message):
    """A line that is no dice command of the system."""

    key: ClassVar[str] = "roll.not_a_command"
    system: str
    line: str


class UnreadableCommand(Message):
    """A command line holding bytes that are not UTF-8 (shown as visible tokens)."""

    key: ClassVar[str] = "roll.unreadable"
    line: str


class SecretRoll(Message):
    """A secret roll's notice."""

    key: ClassVar[str] = "roll.secret"


class DiceLeftOver(Message):
    """Injected dice the command did not use (``dice``: ``1/20, 3/6``)."""

    key: ClassVar[str] = "roll.dice_left_over"
    dice: str


class RollWelcome(Message):
    """The roll session's first line."""

    key: ClassVar[str] = "roll.welcome"
    system: str


class RollHelp(Message):
    """The roll session's /help."""

    key: ClassVar[str] = "roll.help"


class RollEnded(Message):
    """A roll session's /quit."""

    key: ClassVar[str] = "roll.ended"


class UnknownSessionCommand(Message):
    """A /word the roll session does not know."""

    key: ClassVar[str] = "roll.unknown_command"
    command: str


class SystemListing(Message):
    """``/system`` alone: the current system and the known ones."""

    key: ClassVar[str] = "roll.system_listing"
    system: str
    known: str


class SystemSwitched(Message):
    """``/system NAME`` done."""

    key: ClassVar[str] = "roll.system_switched"
    system: str
    name: str


class UnknownLocale(Message):
    """``/locale`` with something other than ja or en."""

    key: ClassVar[str] = "roll.unknown_locale"
    name: str


class LocaleSwitched(Message):
    """``/locale NAME`` done."""

    key: ClassVar[str] = "roll.locale_switched"
    name: str


class SecretResult(Message):
    """A secret roll's result, marked as such (``text``: BCDice's text)."""

    key: ClassVar[str] = "roll.secret_result"
    text: str


class RollRefused(Message):
    """A dice command the engine refused (``reason``: the dice engine's own message)."""

    key: ClassVar[str] = "roll.refused"
    reason: str


class DiceEngineFailed(Message):
    """The dice engine failed on a line (a bug, reported, never a crash)."""

    key: ClassVar[str] = "roll.engine_failed"


class NoSuchRollCommand(Message):
    """A roll-session line that is no dice command of the current system."""

    key: ClassVar[str] = "roll.no_such_command"
    system: str
    line: str


class UnknownSystem(Message):
    """``/system NAME`` with a name no system has."""

    key: ClassVar[str] = "roll.unknown_system"
    name: str


class RollSummary(Message):
    """A roll session's summary: the dice commands rolled, the lines refused (a command that
    is not one, an unknown system or locale: not a part of the commands), the dice rolled."""

    key: ClassVar[str] = "roll.summary"
    commands: int
    refused: int
    dice: int
    system: str


# ---------------------------------------------------------------- adventure


class AdventurePrompt(Message):
    """The player's prompt."""

    key: ClassVar[str] = "adventure.prompt"


class AdventureHelp(Message):
    """The adventure's /help (``stop``: how to stop, :class:`AdventureQuitLine` at a terminal,
    :class:`HelpLeaveThePage` on a web page)."""

    key: ClassVar[str] = "adventure.help"
    stop: str


class GmSays(Message):
    """A line of the GM (adventure narration or the werewolf narrator)."""

    key: ClassVar[str] = "adventure.gm_says"
    text: str


class DiceShown(Message):
    """A roll the GM made, shown with its reason."""

    key: ClassVar[str] = "adventure.dice_shown"
    reason: str
    result: str


# ---------------------------------------------------------------- werewolf: prompts and help


class ChooseRolePrompt(Message):
    """CMD_役職選択's question (``menu``: ``1 人狼、2 村人、…``)."""

    key: ClassVar[str] = "werewolf.choose_role"
    menu: str


class NotARole(Message):
    """An answer to the role question that is not a role number."""

    key: ClassVar[str] = "werewolf.not_a_role"
    text: str


class DiscussionPrompt(Message):
    """The player's discussion turn."""

    key: ClassVar[str] = "werewolf.discussion_prompt"


class AnswerPrompt(Message):
    """The player's answer to a CO要求 (``commands``: the answers it may give)."""

    key: ClassVar[str] = "werewolf.answer_prompt"
    role: str
    commands: str


class TargetPrompt(Message):
    """A vote / night / 事前占い choice (``kind``: 投票先, 襲撃先, …; ``menu``: the seats)."""

    key: ClassVar[str] = "werewolf.target_prompt"
    kind: str
    menu: str


class VoteReasonPrompt(Message):
    """The question for the vote's reason."""

    key: ClassVar[str] = "werewolf.vote_reason_prompt"


class DiscussionHelp(Message):
    """/help at the discussion: plain words and every command (``commands``: the lines of
    the commands every question takes, see ``help_commands``)."""

    key: ClassVar[str] = "werewolf.discussion_help"
    commands: str


class ChoiceHelp(Message):
    """/help at a vote, night or 事前占い question (``commands`` as in :class:`DiscussionHelp`)."""

    key: ClassVar[str] = "werewolf.choice_help"
    commands: str


class RoleHelp(Message):
    """``/help`` at the role question (``menu``: the roles by number; ``commands`` as in
    :class:`DiscussionHelp`)."""

    key: ClassVar[str] = "werewolf.help.role"
    menu: str
    commands: str


class ReasonHelp(Message):
    """``/help`` at the vote-reason question (``commands`` as in :class:`DiscussionHelp`)."""

    key: ClassVar[str] = "werewolf.help.reason"
    commands: str


class ConfirmHelp(Message):
    """``/help`` at the confirmation of an unsure reading (``commands`` as in
    :class:`DiscussionHelp`)."""

    key: ClassVar[str] = "werewolf.help.confirm"
    commands: str


class EmptyRole(Message):
    """An empty line at the role question."""

    key: ClassVar[str] = "werewolf.empty_role"


class EmptyReason(Message):
    """An empty line at the vote-reason question."""

    key: ClassVar[str] = "werewolf.empty_reason"


class ConfirmAgain(Message):
    """A confirmation answered with neither yes nor no."""

    key: ClassVar[str] = "werewolf.confirm_again"


class LogTitle(Message):
    """The heading of ``/log``."""

    key: ClassVar[str] = "werewolf.log_title"


class LogEmpty(Message):
    """``/log`` before anything public happened."""

    key: ClassVar[str] = "werewolf.log_empty"


class VotesDay(Message):
    """The heading of one day's votes in ``/votes``."""

    key: ClassVar[str] = "werewolf.votes_day"
    day: int


class VotesNone(Message):
    """``/votes`` before the first vote."""

    key: ClassVar[str] = "werewolf.votes_none"


class OptionsInvalid(Message):
    """The game's options do not hold (``problems``: which, in the player's words)."""

    key: ClassVar[str] = "werewolf.options_invalid"
    problems: str


class EmptyLine(Message):
    """An empty line at the discussion: asked again (a pass is /pass)."""

    key: ClassVar[str] = "werewolf.empty_line"


class CannotDo(Message):
    """A discussion line the game refused (``reason``: a rendered refusal)."""

    key: ClassVar[str] = "werewolf.cannot_do"
    reason: str


class UsageClaim(Message):
    """/co with a wrong form."""

    key: ClassVar[str] = "werewolf.usage_claim"


class UsageResult(Message):
    """/result with a wrong form."""

    key: ClassVar[str] = "werewolf.usage_result"


class UsageRequest(Message):
    """/request with a wrong form."""

    key: ClassVar[str] = "werewolf.usage_request"


class UnknownCommand(Message):
    """A /word the discussion does not know."""

    key: ClassVar[str] = "werewolf.unknown_command"
    command: str


class GameQuit(Message):
    """/quit during a game."""

    key: ClassVar[str] = "werewolf.quit"


class QuitSummary(Message):
    """The summary of a game left with /quit."""

    key: ClassVar[str] = "werewolf.quit_summary"
    day: int


class WonSummary(Message):
    """The summary of a finished game."""

    key: ClassVar[str] = "werewolf.won_summary"
    team: str
    day: int


class VoteLabel(Message):
    """投票先."""

    key: ClassVar[str] = "werewolf.label.vote"


class AttackLabel(Message):
    """襲撃先."""

    key: ClassVar[str] = "werewolf.label.attack"


class DivineLabel(Message):
    """占い先."""

    key: ClassVar[str] = "werewolf.label.divine"


class GuardLabel(Message):
    """護衛先."""

    key: ClassVar[str] = "werewolf.label.guard"


class PreDivineLabel(Message):
    """事前占いの相手."""

    key: ClassVar[str] = "werewolf.label.pre_divine"


# ---------------------------------------------------------------- werewolf: the player's own screen


class YourRole(Message):
    """The dealt role, shown to the player only."""

    key: ClassVar[str] = "werewolf.screen.role"
    role: str


class YourPartners(Message):
    """A 人狼's partners (``names``: joined)."""

    key: ClassVar[str] = "werewolf.screen.partners"
    names: str


class YourDivineResult(Message):
    """The player's divine result."""

    key: ClassVar[str] = "werewolf.screen.divine"
    target: str
    colour: str


class YourMediumResult(Message):
    """The player's medium result."""

    key: ClassVar[str] = "werewolf.screen.medium"
    target: str
    colour: str


class YourAttackSucceeded(Message):
    """The wolves' attack got through."""

    key: ClassVar[str] = "werewolf.screen.attack_succeeded"
    target: str


class YourAttackGuarded(Message):
    """The wolves' attack was stopped by the 狩人."""

    key: ClassVar[str] = "werewolf.screen.attack_guarded"
    target: str


class YourGuardSaved(Message):
    """The player's guard stopped the attack."""

    key: ClassVar[str] = "werewolf.screen.guard_saved"
    target: str


class YourGuard(Message):
    """The player guarded (nothing came)."""

    key: ClassVar[str] = "werewolf.screen.guard"
    target: str


# ---------------------------------------------------------------- werewolf: naming a seat


class TargetEmpty(Message):
    """Nothing typed at a choice."""

    key: ClassVar[str] = "werewolf.target.empty"


class TargetUnknown(Message):
    """No seat by that name or number."""

    key: ClassVar[str] = "werewolf.target.unknown"
    text: str


class TargetConflict(Message):
    """A P-number and a name of different seats."""

    key: ClassVar[str] = "werewolf.target.conflict"
    text: str


class TargetNotAChoice(Message):
    """A seat that cannot be chosen now."""

    key: ClassVar[str] = "werewolf.target.not_a_choice"
    name: str


class TargetForms(Message):
    """The hint after a miss: the choices and the accepted forms, by example."""

    key: ClassVar[str] = "werewolf.target.forms"
    choices: str
    p_number: str
    number: int
    name: str
    reading: str


class TargetHint(Message):
    """A missed choice: why (a Target… text), then the forms (a TargetForms text)."""

    key: ClassVar[str] = "werewolf.target.hint"
    why: str
    forms: str


# ---------------------------------------------------------------- werewolf: a reading to confirm


class ReadAsRequest(Message):
    """A line read as a CO要求."""

    key: ClassVar[str] = "werewolf.read.request"
    role: str


class ReadAsClaim(Message):
    """A line read as a CO."""

    key: ClassVar[str] = "werewolf.read.claim"
    role: str


class ReadAsClaimWithResult(Message):
    """A line read as a CO with its result."""

    key: ClassVar[str] = "werewolf.read.claim_with_result"
    role: str
    target: str
    colour: str


class ReadAsResult(Message):
    """A line read as a result."""

    key: ClassVar[str] = "werewolf.read.result"
    target: str
    colour: str


class ReadAsDecline(Message):
    """A line read as not coming out."""

    key: ClassVar[str] = "werewolf.read.decline"


class ReadAsPass(Message):
    """A line read as a pass."""

    key: ClassVar[str] = "werewolf.read.pass"


class ConfirmReading(Message):
    """The one-line question after an unsure reading (``reading``: a ReadAs… text)."""

    key: ClassVar[str] = "werewolf.read.confirm"
    reading: str


# ---------------------------------------------------------------- werewolf: refusals by rule


class Reason(StrEnum):
    """Why the engine refused an action, in the player's terms (texts: ``werewolf.why.<value>``)."""

    GAME_OVER = "game_over"
    ROLE_FIXED = "role_fixed"
    PHASE = "phase"
    DEAD = "dead"
    NOT_YOUR_TURN = "not_your_turn"
    VILLAGER_CLAIMS = "villager_claims"
    OTHER_ROLE_CLAIMS = "other_role_claims"
    MADMAN_CLAIMS = "madman_claims"
    CLAIM_ONCE = "claim_once"
    CLAIMABLE_ROLES = "claimable_roles"
    CLAIM_NEEDS_RESULT = "claim_needs_result"
    RESULT_NOT_YOURS = "result_not_yours"
    REQUEST_DAY = "request_day"
    NOTHING_TO_DECLINE = "nothing_to_decline"
    ANSWER_WITH_REQUESTED_ROLE = "answer_with_requested_role"
    MUST_COME_OUT = "must_come_out"
    STATE_RESULT_NOW = "state_result_now"
    ANSWER_FIRST = "answer_first"
    RESULT_NEEDS_CLAIM = "result_needs_claim"
    VOTE_TARGET = "vote_target"
    VOTED_ALREADY = "voted_already"
    RUNOFF_CANDIDATES = "runoff_candidates"
    ATTACK_WOLF = "attack_wolf"
    ATTACK_TARGET = "attack_target"
    ATTACK_BEFORE_EXECUTION = "attack_before_execution"
    DIVINE_TARGET = "divine_target"
    GUARD_TARGET = "guard_target"
    NOT_YOUR_ABILITY = "not_your_ability"
    PENDING = "pending"
    TEXT_TOO_LONG = "text_too_long"
    SEAT = "seat"
    FORM = "form"
    DEAL = "deal"
    OTHER = "other"


class Why(Message):
    """A refusal's reason. One class for all the reasons: its text is ``werewolf.why.<reason>``."""

    key: ClassVar[str] = "werewolf.why"
    reason: Reason

    def text_key(self) -> str:
        """``werewolf.why.<reason>``."""
        return f"{self.key}.{self.reason.value}"

    def params(self) -> dict[str, str | int]:
        """None: the reason is the choice of text."""
        return {}


# -- recording a transcript ---------------------------------------------------------------


class RecordingExists(Message):
    """A recording was asked for at ``path``, where a file already is: it is never overwritten."""

    key: ClassVar[str] = "transcript.exists"
    path: str


class RecordingBusy(Message):
    """Another process holds the lock of the transcript at ``path`` (it records or resumes it)."""

    key: ClassVar[str] = "transcript.busy"
    path: str


class TranscriptCutOff(Message):
    """The transcript at ``path`` ends after ``events`` events without its end line."""

    key: ClassVar[str] = "transcript.cut_off"
    path: str
    events: int


class TranscriptCutMidLine(Message):
    """As :class:`TranscriptCutOff`, and its last line (``size`` bytes) is half-written."""

    key: ClassVar[str] = "transcript.cut_mid_line"
    path: str
    events: int
    size: int


class TranscriptHeaderCut(Message):
    """The transcript's first line, its header, is half-written: nothing was recorded."""

    key: ClassVar[str] = "transcript.header_cut"
    path: str


# -- what is wrong with a transcript (gm replay, gm resume) --------------------------------


class Fault(StrEnum):
    """A fixed problem of a transcript's line (texts: ``transcript.fault.<value>``)."""

    EMPTY_FILE = "empty_file"
    NOT_A_HEADER = "not_a_header"
    NO_FORMAT = "no_format"
    FORMAT1_NO_SIGNER = "format1_no_signer"
    SECOND_HEADER = "second_header"
    NOT_AN_OBJECT = "not_an_object"
    TOO_DEEP = "too_deep"
    NO_TYPE = "no_type"
    NO_PREV = "no_prev"
    BYTES_AFTER_END = "bytes_after_end"
    LINE_AFTER_END = "line_after_end"
    BLOBS_BEFORE_END = "blobs_before_end"
    BLOB = "blob"
    PACKED_LINE = "packed_line"
    PACKED_DIGEST = "packed_digest"
    PACKED_SEALED = "packed_sealed"
    SEALED_BLOB_SHAPE = "sealed_blob_shape"
    SEALED_LINE_SHAPE = "sealed_line_shape"
    SEALED_NO_EVENT = "sealed_no_event"
    NO_REVEALED_KEY = "no_revealed_key"
    REVEALED_KEY = "revealed_key"
    END_VALUE = "end_value"
    END_OWN_HASH = "end_own_hash"
    END_AS_WRITTEN = "end_as_written"
    END_SEED = "end_seed"
    SEED = "seed"
    END_SUMMARY = "end_summary"
    END_BEFORE_REST = "end_before_rest"
    SIGNED_NO_SIGNER = "signed_no_signer"
    UNSIGNED = "unsigned"
    SIGNATURE_UNCHECKED = "signature_unchecked"
    EVENT = "event"
    UNEXPECTED_EVENT = "unexpected_event"
    NO_END = "no_end"
    FILE_NOT_FOUND = "file_not_found"
    FILE_FORBIDDEN = "file_forbidden"
    FILE_IS_FOLDER = "file_is_folder"
    JOURNAL_LINE = "journal_line"
    JOURNAL_MISMATCH = "journal_mismatch"


class Problem(Message):
    """A fixed problem of a transcript. One class for all of them: its text is
    ``transcript.fault.<fault>``."""

    key: ClassVar[str] = "transcript.fault"
    fault: Fault

    def text_key(self) -> str:
        """``transcript.fault.<fault>``."""
        return f"{self.key}.{self.fault.value}"

    def params(self) -> dict[str, str | int]:
        """None: the fault is the choice of text."""
        return {}


class AtLine(Message):
    """A transcript's ``problem`` (already rendered) and the line it is on."""

    key: ClassVar[str] = "transcript.at_line"
    line: int
    problem: str


class InFile(Message):
    """A transcript's ``problem`` (already rendered) and the file it is in."""

    key: ClassVar[str] = "transcript.in_file"
    path: str
    problem: str


class UnknownFormat(Message):
    """The header's format number ``version`` is none this reader reads (``readable``)."""

    key: ClassVar[str] = "transcript.unknown_format"
    version: str
    engine: str
    readable: str


class NewerFormat(Message):
    """The header's format ``version`` is newer than this reader's (``readable``)."""

    key: ClassVar[str] = "transcript.newer_format"
    version: int
    engine: str
    readable: str


class FormatWithoutSealing(Message):
    """A header of format ``version`` (before sealing) names a sealing."""

    key: ClassVar[str] = "transcript.no_sealing_before"
    version: int


class BadHeaderField(Message):
    """A header field (``field``, its path) is missing or of the wrong kind."""

    key: ClassVar[str] = "transcript.bad_header_field"
    field: str


class HeaderSystemMismatch(Message):
    """The header's game ``system`` is not the one its options give (``expected``)."""

    key: ClassVar[str] = "transcript.header_system"
    system: str
    expected: str


class NotJson(Message):
    """A line is not JSON; the first wrong character is at ``column``."""

    key: ClassVar[str] = "transcript.not_json"
    column: int


class ChainBroken(Message):
    """A format-2 line's ``prev`` does not match line ``previous``."""

    key: ClassVar[str] = "transcript.chain_broken"
    previous: int


class WrongEventNumber(Message):
    """An event numbered ``found`` where ``expected`` was due."""

    key: ClassVar[str] = "transcript.wrong_event_number"
    found: str
    expected: int


class CheckpointMismatch(Message):
    """The running hash does not match a checkpoint: a line after line ``since`` was edited."""

    key: ClassVar[str] = "transcript.checkpoint"
    since: int


class EndHashMismatch(Message):
    """The end line's hash is not the running hash: it or a line after ``since`` was edited."""

    key: ClassVar[str] = "transcript.end_hash"
    since: int


class SignatureInvalid(Message):
    """The signature is not the one of the key the header names (``signer``, shortened)."""

    key: ClassVar[str] = "transcript.signature_invalid"
    signer: str


class SealedInClear(Message):
    """A ``kind`` event in the clear where it must be sealed."""

    key: ClassVar[str] = "transcript.sealed_in_clear"
    kind: str


class PublicSealed(Message):
    """A public ``kind`` event sealed."""

    key: ClassVar[str] = "transcript.public_sealed"
    kind: str


class LineSealed(Message):
    """Line ``line`` of ``path`` is sealed and the game's key is not at hand (``problem``: why)."""

    key: ClassVar[str] = "transcript.sealed"
    path: str
    line: int
    problem: str


class WrongSeed(Message):
    """``seed`` is not the seed the header committed to (``commitment``, shortened)."""

    key: ClassVar[str] = "transcript.wrong_seed"
    seed: int
    commitment: str


# -- the game's key (a sealed transcript's private lines) ------------------------------


class SealFault(StrEnum):
    """A fixed problem of a game key or a sealed line (texts: ``seal.fault.<value>``)."""

    KEY_HEX = "key_hex"
    BOX_NOT_TEXT = "box_not_text"
    BOX_NOT_BASE64 = "box_not_base64"
    BOX_SHORT = "box_short"
    DOES_NOT_OPEN = "does_not_open"
    KEPT_OTHER_KEY = "kept_other_key"


class SealProblem(Message):
    """A fixed problem of a game key or a sealed line: its text is ``seal.fault.<fault>``."""

    key: ClassVar[str] = "seal.fault"
    fault: SealFault

    def text_key(self) -> str:
        """``seal.fault.<fault>``."""
        return f"{self.key}.{self.fault.value}"

    def params(self) -> dict[str, str | int]:
        """None: the fault is the choice of text."""
        return {}


class NotAKeyId(Message):
    """``key_id`` (shortened) is not a game key id."""

    key: ClassVar[str] = "seal.not_a_key_id"
    key_id: str


class KeyFileUnreadable(Message):
    """The game's key file at ``path`` cannot be read."""

    key: ClassVar[str] = "seal.key_file_unreadable"
    path: str


class NotAKeyFile(Message):
    """The file at ``path`` is not a game key file."""

    key: ClassVar[str] = "seal.not_a_key_file"
    path: str


class KeyFileOtherKey(Message):
    """The key file at ``path`` holds another key than the transcript names."""

    key: ClassVar[str] = "seal.key_file_other_key"
    path: str


class KeyFileMissing(Message):
    """The game's key file (``path``) is not there and no end line reveals the key."""

    key: ClassVar[str] = "seal.key_file_missing"
    path: str


# -- gm replay's report ---------------------------------------------------------------------


class Verdict(StrEnum):
    """The word ``gm replay`` puts after a file's name (texts: ``replay.verdict.<value>``)."""

    OK = "ok"
    FAILED = "failed"
    TAMPERED = "tampered"
    TRUNCATED = "truncated"
    SEALED = "sealed"
    """An unfinished game's transcript whose key is not at hand: nothing wrong with it."""
    INVALID = "invalid"
    UNREADABLE = "unreadable"
    STRICT = "strict"
    TOLERANT = "tolerant"


class VerdictWord(Message):
    """A verdict (or the replay's mode) as a word of the report: ``replay.verdict.<verdict>``."""

    key: ClassVar[str] = "replay.verdict"
    verdict: Verdict

    def text_key(self) -> str:
        """``replay.verdict.<verdict>``."""
        return f"{self.key}.{self.verdict.value}"

    def params(self) -> dict[str, str | int]:
        """None: the verdict is the choice of text."""
        return {}


class ReplayHead(Message):
    """The first line of a file's report (``verdict`` and ``mode``: rendered :class:`VerdictWord`)."""

    key: ClassVar[str] = "replay.head"
    path: str
    verdict: str
    mode: str
    events: int
    calls: int
    inputs: int
    milliseconds: str


class ReplayRefused(Message):
    """A file that could not be replayed: its verdict (rendered) and why (``problem``)."""

    key: ClassVar[str] = "replay.refused"
    path: str
    verdict: str
    problem: str


class ReplayQuietOk(Message):
    """``gm replay -q``'s line for a file that matched but is not signed by a trusted key."""

    key: ClassVar[str] = "replay.quiet_ok"
    path: str
    verdict: str
    signature: str


class ReplayNote(Message):
    """A note under a file's report (``note``: rendered)."""

    key: ClassVar[str] = "replay.note"
    note: str


class EngineChanged(Message):
    """The transcript was recorded by another engine version."""

    key: ClassVar[str] = "replay.engine_changed"
    recorded: str
    current: str


class AssetsChanged(Message):
    """Prompt or persona files (``names``) changed since the recording."""

    key: ClassVar[str] = "replay.assets_changed"
    names: str


class AssetsGone(Message):
    """Prompt or persona files (``names``) gone since the recording."""

    key: ClassVar[str] = "replay.assets_gone"
    names: str


class UnrecordedCalls(Message):
    """``count`` model calls of the replay are not in the recording (``first``: the first's problem)."""

    key: ClassVar[str] = "replay.unrecorded_calls"
    count: int
    first: Message


class SealedOpened(Message):
    """A sealed transcript's private lines all opened with the revealed key."""

    key: ClassVar[str] = "replay.sealed_opened"


class PackedOpened(Message):
    """A packed transcript's private lines, sealed during the game, opened with the revealed key."""

    key: ClassVar[str] = "replay.packed_opened"


# -- a replay that differs from its recording ---------------------------------------------


class DivergenceAt(Message):
    """Where a replay first differs: event ``seq`` on ``line`` (an ``event_type`` event)."""

    key: ClassVar[str] = "replay.divergence_at"
    seq: int
    line: int
    event_type: str
    problem: Message


class DivergenceAtEnd(Message):
    """A replay that differs at its end (or where no recorded event is at hand)."""

    key: ClassVar[str] = "replay.divergence_at_end"
    problem: Message


class ClosestCall(Message):
    """The recorded model call nearest the one the replay made (``call``: a RecordedCallAt)."""

    key: ClassVar[str] = "replay.closest_call"
    call: str


class RecordedCallAt(Message):
    """A recorded model call: its event and line, and who asked when (``phase``: quoted)."""

    key: ClassVar[str] = "replay.recorded_call"
    seq: int
    line: int
    actor: str
    day: int
    phase: str
    turn: int


class DiffRecorded(Message):
    """The label of the recorded side of a diff."""

    key: ClassVar[str] = "replay.diff_recorded"


class DiffReplayed(Message):
    """The label of the replayed side of a diff."""

    key: ClassVar[str] = "replay.diff_replayed"


# -- what a transcript's signature showed ---------------------------------------------------


class SignedByOwnKey(Message):
    """The signature verifies with this installation's key (``signer``: shortened)."""

    key: ClassVar[str] = "signature.own_key"
    signer: str


class SignedByTrustedKey(Message):
    """The signature verifies with a key given as trusted."""

    key: ClassVar[str] = "signature.trusted_key"
    signer: str


class SignedByUnknownKey(Message):
    """The signature verifies, with a key not known here."""

    key: ClassVar[str] = "signature.unknown_key"
    signer: str


class UnsignedOldFormat(Message):
    """A transcript of ``format`` 1, from before signatures."""

    key: ClassVar[str] = "signature.old_format"
    format: int


class UnsignedNoKey(Message):
    """A transcript recorded without a signing key."""

    key: ClassVar[str] = "signature.no_key"


class NotSignedYet(Message):
    """A transcript without its end line: nothing is signed yet."""

    key: ClassVar[str] = "signature.not_yet"


# -- resuming a transcript ----------------------------------------------------------------


class ResumeEnded(Message):
    """The transcript's session ended already: there is nothing to continue."""

    key: ClassVar[str] = "resume.ended"
    path: str
    summary: str


class ResumePackedNow(Message):
    """The transcript's session had ended, but its file was left unpacked (the process
    stopped between its end line and the packing): it is packed now."""

    key: ClassVar[str] = "resume.packed_now"
    path: str
    summary: str


class ResumeOldFormat(Message):
    """A transcript of an older format: it replays, but this version cannot continue it."""

    key: ClassVar[str] = "resume.old_format"
    path: str
    format: int
    current: int


class ResumeNoSigner(Message):
    """The transcript cannot be continued under its signer (``cause``: why)."""

    key: ClassVar[str] = "resume.no_signer"
    path: str
    cause: str


class ResumeNoSeedInKey(Message):
    """A sealed game's seed is in neither its key file nor the command line."""

    key: ClassVar[str] = "resume.no_seed_in_key"
    path: str


class ResumeNoSeedFile(Message):
    """An older recording's seed is in neither its seed file nor the command line."""

    key: ClassVar[str] = "resume.no_seed_file"
    path: str
    seed_file: str


class ResumeWrongSeed(Message):
    """The seed given does not match the transcript's commitment (``cause``: the check's words)."""

    key: ClassVar[str] = "resume.wrong_seed"
    cause: str


class ResumeDiverged(Message):
    """The engine no longer reproduces what was recorded (``detail``: the closest
    recorded event and the difference, as replay reports it)."""

    key: ClassVar[str] = "resume.diverged"
    path: str
    detail: str


class ResumeLineDropped(Message):
    """The half-written last line of a cut-off transcript was dropped before going on."""

    key: ClassVar[str] = "resume.line_dropped"
    path: str
    size: int


# -- what a replay found different from its recording (the problem of a Divergence) ---------


class NoAnswerRecorded(Message):
    """The recording stops after a model request, before its answer."""

    key: ClassVar[str] = "replay.differs.no_answer"


class NoMoreCalls(Message):
    """A model request (where it stands: ``actor``, ``day``, ``phase`` quoted, ``turn``)
    after the recording's last model call."""

    key: ClassVar[str] = "replay.differs.no_more_calls"
    actor: str
    day: int
    phase: str
    turn: int


class ToolsDiffer(Message):
    """A model request whose messages are the recorded ones, but not its tools."""

    key: ClassVar[str] = "replay.differs.tools"
    actor: str
    day: int
    phase: str
    turn: int


class MatchesNoCall(Message):
    """A model request no recorded call stands where it does (tolerant replay)."""

    key: ClassVar[str] = "replay.differs.no_call"
    actor: str
    day: int
    phase: str
    turn: int


class DiffersFromUnusedCalls(Message):
    """A model request that is none of the unused recorded ones (strict replay)."""

    key: ClassVar[str] = "replay.differs.unused_calls"
    actor: str
    day: int
    phase: str
    turn: int


class RequestElsewhere(Message):
    """The model request in an event's place stands elsewhere than the recorded one."""

    key: ClassVar[str] = "replay.differs.request_place"
    actor: str
    day: int
    phase: str
    turn: int


class RequestReworded(Message):
    """The model request in an event's place has other messages or tools than the recorded one."""

    key: ClassVar[str] = "replay.differs.request_content"
    actor: str
    day: int
    phase: str
    turn: int


class AsksOnceMore(Message):
    """The session asks the human after the ``given`` recorded inputs (``prompt``: quoted)."""

    key: ClassVar[str] = "replay.differs.asks_more"
    given: int
    prompt: str


class AsksOtherPrompt(Message):
    """The session asks the human with another prompt than recorded."""

    key: ClassVar[str] = "replay.differs.prompt"


class GoesOnAfterEnd(Message):
    """The replay emits an ``event_type`` event after the recording's last event."""

    key: ClassVar[str] = "replay.differs.goes_on"
    event_type: str


class OtherEventType(Message):
    """The replay emits an ``emitted`` event where a ``recorded`` one was recorded."""

    key: ClassVar[str] = "replay.differs.event_type"
    emitted: str
    recorded: str


class EventDiffers(Message):
    """An ``event_type`` event with other contents than recorded."""

    key: ClassVar[str] = "replay.differs.event"
    event_type: str


class EndedEarly(Message):
    """The replayed session ended with ``more`` recorded events still to come."""

    key: ClassVar[str] = "replay.differs.ended_early"
    more: int


class SessionRaised(Message):
    """The engine failed during the replay: the exception's class and text (a bug report)."""

    key: ClassVar[str] = "replay.differs.raised"
    error_type: str
    error: str


class ThenRaised(Message):
    """A divergence (``problem``) after which the engine failed (``raised``)."""

    key: ClassVar[str] = "replay.differs.then_raised"
    problem: Message
    raised: Message


class CallsNeverMade(Message):
    """``count`` recorded model calls the replay never made."""

    key: ClassVar[str] = "replay.differs.calls_never_made"
    count: int


class InputsNeverAsked(Message):
    """``count`` recorded human inputs the replay never asked for."""

    key: ClassVar[str] = "replay.differs.inputs_never_asked"
    count: int


class OtherOutcome(Message):
    """The replayed session ends with another summary or figures than recorded."""

    key: ClassVar[str] = "replay.differs.outcome"


class NextRecordedEvent(Message):
    """Under a crash: the recorded event the replay was about to check."""

    key: ClassVar[str] = "replay.differs.next_event"
    event_type: str
    line: int


class MoreDiffLines(Message):
    """The last line of a diff cut short: how many lines were left out."""

    key: ClassVar[str] = "replay.differs.more_diff_lines"
    count: int


# -- why the combat engine refused an action (IllegalActionError.reason) -------------------


class CouldNotCarryOut(Message):
    """An action the engine could not carry out (``cause``: the dice or model error)."""

    key: ClassVar[str] = "combat.refused.could_not_carry_out"
    cause: str


class NoSuchPc(Message):
    """No PC of the battle goes by ``name`` (quoted)."""

    key: ClassVar[str] = "combat.refused.no_such_pc"
    name: str
    party: str


class NoSuchEnemy(Message):
    """No enemy of the battle goes by ``name`` (quoted)."""

    key: ClassVar[str] = "combat.refused.no_such_enemy"
    name: str
    enemies: str


class DownAddsNoAp(Message):
    """A PC who is down (``status``) sets no situational bonus."""

    key: ClassVar[str] = "combat.refused.down_adds_no_ap"
    name: str
    status: str


class SanctuaryAddsNoAp(Message):
    """A 【聖域】 caster sets no situational bonus (§6.2.2)."""

    key: ClassVar[str] = "combat.refused.sanctuary_adds_no_ap"
    name: str


class BonusOutOfRange(Message):
    """A situational bonus outside the rank's range (``low``, ``cap``, ``bonus``: signed)."""

    key: ClassVar[str] = "combat.refused.bonus_out_of_range"
    name: str
    low: str
    cap: str
    rank: str
    bonus: str


class EnemyFallen(Message):
    """A target enemy that has fallen."""

    key: ClassVar[str] = "combat.refused.enemy_fallen"
    name: str


class PcDown(Message):
    """A PC who is down (``status``: 戦闘不能, 死亡)."""

    key: ClassVar[str] = "combat.refused.pc_down"
    name: str
    status: str


class AlreadyPlayedOut(Message):
    """Fighting it out asked for once dice were rolled or spells cast."""

    key: ClassVar[str] = "combat.refused.already_played_out"


class FightWishRecorded(Message):
    """Fighting it out asked for twice."""

    key: ClassVar[str] = "combat.refused.fight_wish_recorded"


class NarrativeTooLate(Message):
    """Narrative priority asked for after the first die or spell (§0)."""

    key: ClassVar[str] = "combat.refused.narrative_too_late"


class FightRequested(Message):
    """Narrative priority after the player asked to fight it out."""

    key: ClassVar[str] = "combat.refused.fight_requested"


class NotOverwhelming(Message):
    """Narrative priority for a PC side that is not overwhelming by the expected AP."""

    key: ClassVar[str] = "combat.refused.not_overwhelming"
    pc_ap: str
    enemy_ap: str
    ratio: str


class NotOverwhelmingExample(Message):
    """As :class:`NotOverwhelming`, under the test of §0's own example."""

    key: ClassVar[str] = "combat.refused.not_overwhelming_example"
    pc_ap: str
    enemy_ap: str
    ratio: str


class CannotCastDown(Message):
    """A caster who is down."""

    key: ClassVar[str] = "combat.refused.cannot_cast_down"
    name: str
    status: str


class NoSpellsKnown(Message):
    """The list of spells of a caster who knows none."""

    key: ClassVar[str] = "combat.refused.no_spells_known"


class SpellNotKnown(Message):
    """A spell the caster does not know (``known``: the ones it does, or :class:`NoSpellsKnown`)."""

    key: ClassVar[str] = "combat.refused.spell_not_known"
    name: str
    spell: str
    known: str | Message


class NoSlotsPaidAlready(Message):
    """No slot left and the lasting cost paid as often as the option allows (§5.2)."""

    key: ClassVar[str] = "combat.refused.no_slots_paid_already"
    name: str
    times: int
    limit: int


class MaxHpCannotPay(Message):
    """No slot left and a max HP too low for the lasting cost (§5.2)."""

    key: ClassVar[str] = "combat.refused.max_hp_cannot_pay"
    name: str


class SpellNeedsTarget(Message):
    """A spell cast without its target PC."""

    key: ClassVar[str] = "combat.refused.spell_needs_target"
    spell: str


class SpellTakesNoTarget(Message):
    """A spell cast with a target it does not take."""

    key: ClassVar[str] = "combat.refused.spell_takes_no_target"
    spell: str


class AmountOnlyLimitBreak(Message):
    """An amount given to a spell other than 【限界突破】."""

    key: ClassVar[str] = "combat.refused.amount_only_limit_break"


class LimitBreakNeedsAmount(Message):
    """【限界突破】 without its amount."""

    key: ClassVar[str] = "combat.refused.limit_break_needs_amount"


class HealingWaveNeedsMode(Message):
    """【治癒の波動】 without its mode."""

    key: ClassVar[str] = "combat.refused.healing_wave_needs_mode"


class SpellTakesNoMode(Message):
    """A mode given to a spell other than 【治癒の波動】."""

    key: ClassVar[str] = "combat.refused.spell_takes_no_mode"
    spell: str


class LimitBreakAmount(Message):
    """A 【限界突破】 amount that would take HP below 1 (§6.2.3)."""

    key: ClassVar[str] = "combat.refused.limit_break_amount"
    most: int
    name: str
    amount: int


class SanctuaryAlready(Message):
    """A second 【聖域】 by one caster in a round."""

    key: ClassVar[str] = "combat.refused.sanctuary_already"
    name: str


class SanctuaryNoApSpell(Message):
    """An AP spell by a 【聖域】 caster (§6.2.2)."""

    key: ClassVar[str] = "combat.refused.sanctuary_no_ap_spell"
    name: str
    spell: str


class SanctuaryCasterAddsAp(Message):
    """【聖域】 by a caster who adds AP this round (``spells``: how)."""

    key: ClassVar[str] = "combat.refused.sanctuary_caster_adds_ap"
    name: str
    spells: str


class ReviveNotThisScene(Message):
    """【蘇生】 on one who did not die in this scene (§6.2.4)."""

    key: ClassVar[str] = "combat.refused.revive_not_this_scene"
    name: str


class ReviveWarded(Message):
    """A second 【蘇生】 ward on one PC."""

    key: ClassVar[str] = "combat.refused.revive_warded"
    name: str


class ReviveNoCheckLeft(Message):
    """A 【蘇生】 ward too late in the round to matter (§6.2.4)."""

    key: ClassVar[str] = "combat.refused.revive_no_check_left"
    name: str


class HealDead(Message):
    """【治癒】 on one who is dead (§6.2.4)."""

    key: ClassVar[str] = "combat.refused.heal_dead"
    name: str


class NoRollToReroll(Message):
    """【予見】 at ROLL with no combat roll live (§4.5)."""

    key: ClassVar[str] = "combat.refused.no_roll_to_reroll"


class ForesightRevived(Message):
    """【予見】 on a life-or-death check that 【蘇生】 made a success."""

    key: ClassVar[str] = "combat.refused.foresight_revived"
    name: str


class ForesightNoCheck(Message):
    """【予見】 at JUDGE when the last roll is no open life-or-death check (§4.5)."""

    key: ClassVar[str] = "combat.refused.foresight_no_check"


class SlowDoesNothing(Message):
    """A 【鈍足】 that would take no die (§6.2.2)."""

    key: ClassVar[str] = "combat.refused.slow_does_nothing"
    dice: int


class UnknownSpellName(Message):
    """A spell name no spell has (``spell``: quoted)."""

    key: ClassVar[str] = "combat.refused.unknown_spell"
    spell: str


class NoEffectOutside(Message):
    """A spell with no effect outside a battle (§6.2)."""

    key: ClassVar[str] = "combat.refused.no_effect_outside"
    spell: str


class HealingWaveNoTarget(Message):
    """【治癒の波動】 outside a battle given a target."""

    key: ClassVar[str] = "combat.refused.healing_wave_no_target"


class NotWellFormed(Message):
    """An action that is no well-formed action (``problems``: the validator's)."""

    key: ClassVar[str] = "combat.refused.not_well_formed"
    problems: str


class BattleInProgress(Message):
    """A second battle started while one runs."""

    key: ClassVar[str] = "combat.refused.battle_in_progress"


class FleeAtSetup(Message):
    """Fleeing outside SETUP or outside a scenario's fight."""

    key: ClassVar[str] = "combat.refused.flee_at_setup"


class NoRestInBattle(Message):
    """A rest during a battle."""

    key: ClassVar[str] = "combat.refused.no_rest_in_battle"


class NoOneToRest(Message):
    """A rest with no character made yet."""

    key: ClassVar[str] = "combat.refused.no_one_to_rest"


class NoSpellChangeInBattle(Message):
    """[魔法変更] during a battle (§5.2)."""

    key: ClassVar[str] = "combat.refused.no_spell_change_in_battle"


class NoSuchCharacter(Message):
    """No character of the party goes by ``name`` (quoted)."""

    key: ClassVar[str] = "combat.refused.no_such_character"
    name: str
    party: str


class CharacterDead(Message):
    """A character who is dead."""

    key: ClassVar[str] = "combat.refused.character_dead"
    name: str


# -- the adventure's answers to the player's own commands (/rest, [魔法変更: …]) -------------


class CannotRest(Message):
    """``/rest`` refused (``why``: the engine's reason)."""

    key: ClassVar[str] = "adventure.cannot_rest"
    why: Message


class CannotChangeSpells(Message):
    """``[魔法変更: …]`` refused (``why``: the engine's reason, or one of the checks below)."""

    key: ClassVar[str] = "adventure.cannot_change_spells"
    why: Message


class SpellsUnknown(Message):
    """Spell names no spell has (``unknown``), and the spells there are (``known``)."""

    key: ClassVar[str] = "adventure.spells_unknown"
    unknown: str
    known: str


class SpellTwice(Message):
    """One spell named twice in a [魔法変更]."""

    key: ClassVar[str] = "adventure.spell_twice"


class MoreSpellsThanSlots(Message):
    """More spells (``given``) than ``name`` has slots (``slots``)."""

    key: ClassVar[str] = "adventure.more_spells_than_slots"
    name: str
    slots: int
    given: int


class NoCharacterYet(Message):
    """A command about a character before the character is made."""

    key: ClassVar[str] = "adventure.no_character_yet"


class CombatRefused(Message):
    """``gm combat demo``: an action the engine refused (``why``: its reason, in the locale)."""

    key: ClassVar[str] = "cli.combat_refused"
    why: str


# -- werewolf: the renderer's sentences around the document's records --------------------------
# (the records themselves, 【投票結果】 【公開情報】 【〇〇が退席しました】 【ゲーム終了】 and the
# 【CMD_…】 cues, keep the rule document's format in every locale: docs/werewolf.md)


class TableGameStarted(Message):
    """The first line of a game."""

    key: ClassVar[str] = "werewolf.table.game_started"


class TablePreDivinationDone(Message):
    """What everyone but the 占い師 is told after the 事前占い."""

    key: ClassVar[str] = "werewolf.table.pre_divination_done"


class TablePreDivinationYours(Message):
    """What the 占い師 is told instead: its 事前占い result."""

    key: ClassVar[str] = "werewolf.table.pre_divination_yours"
    target: str
    colour: str


class TableDiscussionStarted(Message):
    """A day's discussion begins."""

    key: ClassVar[str] = "werewolf.table.discussion_started"
    day: int


class TablePass(Message):
    """A seat passed its turn."""

    key: ClassVar[str] = "werewolf.table.pass"
    speaker: str


class TableClaim(Message):
    """A seat came out (CO) without a result."""

    key: ClassVar[str] = "werewolf.table.claim"
    speaker: str
    role: str


class TableClaimWithResult(Message):
    """A seat came out (CO) with its result."""

    key: ClassVar[str] = "werewolf.table.claim_with_result"
    speaker: str
    role: str
    target: str
    colour: str


class TableResult(Message):
    """A claimant stated a result (the line names its speaker)."""

    key: ClassVar[str] = "werewolf.table.result"
    speaker: str
    role: str
    target: str
    colour: str


class TableRequestWords(Message):
    """The words of a CO要求 made without words of its own."""

    key: ClassVar[str] = "werewolf.table.request_words"
    role: str


class TableRequest(Message):
    """The note under a CO要求."""

    key: ClassVar[str] = "werewolf.table.request"
    role: str


class TableDeclined(Message):
    """A seat answered a CO要求 without coming out, and without words."""

    key: ClassVar[str] = "werewolf.table.declined"
    speaker: str


class TableRunoff(Message):
    """A tie: the runoff between ``candidates``."""

    key: ClassVar[str] = "werewolf.table.runoff"
    candidates: str


class TableChooseVote(Message):
    """The call to vote in a runoff."""

    key: ClassVar[str] = "werewolf.table.choose_vote"


class TableVotingOpened(Message):
    """The discussion is over; the vote opens."""

    key: ClassVar[str] = "werewolf.table.voting_opened"


class TableNoExecution(Message):
    """The runoff tied too: nobody is executed."""

    key: ClassVar[str] = "werewolf.table.no_execution"


class TableNight(Message):
    """Night falls."""

    key: ClassVar[str] = "werewolf.table.night"


class TableMorningQuiet(Message):
    """A morning after a night without a victim."""

    key: ClassVar[str] = "werewolf.table.morning_quiet"
    day: int


class TableMorningVictim(Message):
    """A morning after the attack on ``victim``."""

    key: ClassVar[str] = "werewolf.table.morning_victim"
    day: int
    victim: str


class ListSeparator(Message):
    """What separates the items of a list in a sentence (、 in Japanese)."""

    key: ClassVar[str] = "werewolf.list_separator"


class AdventureLeft(Message):
    """The summary of an adventure the player left (``/quit``)."""

    key: ClassVar[str] = "adventure.left"


class AdventureOutOfTurns(Message):
    """The summary of an adventure that ran out of GM turns."""

    key: ClassVar[str] = "adventure.out_of_turns"


class AdventureEmptyLine(Message):
    """An empty line at the adventure's prompt: asked again, not played as a turn."""

    key: ClassVar[str] = "adventure.empty_line"


class NarrationWithheld(Message):
    """The GM's narration of a turn was all withheld: none of it matched the engine."""

    key: ClassVar[str] = "adventure.narration_withheld"


# ================================================================ words (issue 11, NAME=words)
# The command line's own errors: the system's (OSError), argparse's, and the sessions'
# setup errors (scenario, game system), in the player's words. Kept as one block so that
# it merges next to the other blocks appended at the end of this file.

# ---------------------------------------------------------------- os


class PathProblem(Message):
    """A file or folder the command needed, and what is wrong with it (``reason``: one of
    the ``os.*`` texts, already rendered)."""

    key: ClassVar[str] = "os.path_problem"
    path: str
    reason: str


class NoSuchPath(Message):
    """ENOENT: there is no file or folder of that name."""

    key: ClassVar[str] = "os.not_found"


class PathForbidden(Message):
    """EACCES / EPERM: this user may not read or write it."""

    key: ClassVar[str] = "os.forbidden"


class PathIsFolder(Message):
    """EISDIR: a folder where a file was needed."""

    key: ClassVar[str] = "os.is_folder"


class PathNotFolder(Message):
    """ENOTDIR: a part of the path that should be a folder is a file."""

    key: ClassVar[str] = "os.not_a_folder"


class PathReadOnly(Message):
    """EROFS: a read-only file system."""

    key: ClassVar[str] = "os.read_only"


class PathExists(Message):
    """EEXIST: something is already there."""

    key: ClassVar[str] = "os.exists"


class NoSpaceLeft(Message):
    """ENOSPC / EDQUOT: the disk (or the user's quota) is full."""

    key: ClassVar[str] = "os.no_space"


class NameTooLong(Message):
    """ENAMETOOLONG."""

    key: ClassVar[str] = "os.name_too_long"


class SystemFault(Message):
    """Any other error of the operating system, by its symbolic name (``EIO``…)."""

    key: ClassVar[str] = "os.other"
    code: str


class CannotRecord(Message):
    """The recording asked for at ``path`` could not be created (``reason``: why, rendered)."""

    key: ClassVar[str] = "os.cannot_record"
    path: str
    reason: str


class RecordingRefused(Message):
    """The recording could not start (``reason``: the transcript's own sentence, e.g. a file
    already there); nothing was played or saved."""

    key: ClassVar[str] = "os.recording_refused"
    command: str
    reason: str


# ---------------------------------------------------------------- args


class UsageError(Message):
    """A command line argparse refused: ``problem`` (one of the ``args.*`` texts) and where
    the usage is."""

    key: ClassVar[str] = "args.usage_error"
    prog: str
    problem: str


class ArgumentProblem(Message):
    """``problem`` about the argument ``argument`` (``--seed``, ``line``)."""

    key: ClassVar[str] = "args.argument"
    argument: str
    problem: str


class NotAWholeNumber(Message):
    """``value`` is not a whole number (argparse's ``int``)."""

    key: ClassVar[str] = "args.not_int"
    value: str


class NotANumber(Message):
    """``value`` is not a number (argparse's ``float``)."""

    key: ClassVar[str] = "args.not_number"
    value: str


class NotAValue(Message):
    """``value`` cannot be read as a ``kind`` (another type function)."""

    key: ClassVar[str] = "args.not_value"
    value: str
    kind: str


class NotAChoice(Message):
    """``value`` is not one of ``choices``."""

    key: ClassVar[str] = "args.not_a_choice"
    value: str
    choices: str


class ArgumentsMissing(Message):
    """Required arguments left out."""

    key: ClassVar[str] = "args.missing"
    arguments: str


class OneOfMissing(Message):
    """None of a required group of arguments was given."""

    key: ClassVar[str] = "args.one_of_missing"
    arguments: str


class ArgumentsUnknown(Message):
    """Arguments no command takes."""

    key: ClassVar[str] = "args.unknown"
    arguments: str


class NotAllowedWith(Message):
    """Two arguments that exclude each other."""

    key: ClassVar[str] = "args.not_allowed_with"
    other: str


class ExpectsOneValue(Message):
    """An option without its value."""

    key: ClassVar[str] = "args.expects_one"


class ExpectsAtMostOne(Message):
    """An option with more values than it takes."""

    key: ClassVar[str] = "args.expects_at_most_one"


class ExpectsAtLeastOne(Message):
    """An option or argument that needs one value or more."""

    key: ClassVar[str] = "args.expects_at_least_one"


class AmbiguousOption(Message):
    """An abbreviated option that fits several."""

    key: ClassVar[str] = "args.ambiguous"
    option: str
    matches: str


class ExplicitArgumentIgnored(Message):
    """A value given to an option that takes none."""

    key: ClassVar[str] = "args.ignored_value"
    value: str


# ---------------------------------------------------------------- setup


class NoSuchScenario(Message):
    """``--scenario`` names no shipped scenario."""

    key: ClassVar[str] = "setup.no_scenario"
    name: str
    known: str


class NoSuchSystem(Message):
    """``--system`` names no game system."""

    key: ClassVar[str] = "setup.no_system"
    name: str
    known: str


class SystemCaseDiffers(Message):
    """``--system`` names a game system with the wrong case (ids are exact, as in BCDice)."""

    key: ClassVar[str] = "setup.system_case"
    name: str
    alike: str


# ---------------------------------------------------------------- ledger (words)


class LedgerLine(Message):
    """One line of the model-call totals at a session's end (``cache``, ``estimated``: the
    optional parts, rendered, or empty)."""

    key: ClassVar[str] = "ledger.line"
    label: str
    calls: int
    prompt: int
    completion: int
    cache: str
    estimated: str
    latency: str
    mean: str


class LedgerCache(Message):
    """The prompt tokens the server served from its cache."""

    key: ClassVar[str] = "ledger.cache"
    cached: int
    share: str


class LedgerEstimated(Message):
    """How many calls' tokens were estimated."""

    key: ClassVar[str] = "ledger.estimated"
    calls: int


class LedgerTotalLabel(Message):
    """The label of the totals line."""

    key: ClassVar[str] = "ledger.total"


class LedgerGameTotalLabel(Message):
    """The label of the totals line of a named game (``adventure``)."""

    key: ClassVar[str] = "ledger.game_total"
    game: str


class LedgerDayLabel(Message):
    """The label of a game day's line."""

    key: ClassVar[str] = "ledger.day"
    day: int


class LedgerGameLabel(Message):
    """The label of one game's line (several games merged)."""

    key: ClassVar[str] = "ledger.game"
    game: str


class LedgerCountedBy(Message):
    """Who counted the tokens (``who``: one or several of the ``ledger.by_*`` texts)."""

    key: ClassVar[str] = "ledger.counted_by"
    who: str


class CountedByServer(Message):
    """The server reported the tokens."""

    key: ClassVar[str] = "ledger.by_server"


class CountedByBackend(Message):
    """The backend estimated its own tokens (the offline model)."""

    key: ClassVar[str] = "ledger.by_backend"


class CountedByEstimate(Message):
    """The ledger estimated the tokens from the characters."""

    key: ClassVar[str] = "ledger.by_estimate"
    japanese: str
    other: str


class CountedByNobody(Message):
    """No call was made."""

    key: ClassVar[str] = "ledger.by_nobody"


class CountedBySeveral(Message):
    """One of several counters and how many calls it counted."""

    key: ClassVar[str] = "ledger.by_several"
    who: str
    calls: int


class CountedByOneOfSeveral(Message):
    """One of several counters, which counted one call."""

    key: ClassVar[str] = "ledger.by_one_of_several"
    who: str


# ---------------------------------------------------------------- model server (words)


class ServerSaid(Message):
    """``problem`` (rendered) and, quoted, the server's own words about it."""

    key: ClassVar[str] = "server.said"
    problem: str
    said: str


class ServerMissingJinja(Message):
    """llama.cpp started without ``--jinja`` (diagnosis ``missing_jinja``)."""

    key: ClassVar[str] = "server.missing_jinja"


class ServerContextOverflow(Message):
    """The prompt is longer than the server's context (diagnosis ``context_overflow``)."""

    key: ClassVar[str] = "server.context_overflow"


class ServerBadKey(Message):
    """The API key was refused (diagnosis ``bad_key``)."""

    key: ClassVar[str] = "server.bad_key"


class ServerUnknownModel(Message):
    """The server has no model ``model`` (diagnosis ``unknown_model``)."""

    key: ClassVar[str] = "server.unknown_model"
    model: str


class ServerUnnamedModel(Message):
    """The server has no such model, the name not known here (diagnosis ``unknown_model``)."""

    key: ClassVar[str] = "server.unnamed_model"


class ServerFailing(Message):
    """The server kept answering with an HTTP error ``status`` (5xx) through the retries."""

    key: ClassVar[str] = "server.failing"
    status: int


class ServerRateLimited(Message):
    """The server kept answering 429 through the retries."""

    key: ClassVar[str] = "server.rate_limited"


class ServerTimedOut(Message):
    """No (complete) answer in time."""

    key: ClassVar[str] = "server.timed_out"


class ServerNoConnection(Message):
    """The connection to the server could not be made or was lost."""

    key: ClassVar[str] = "server.no_connection"


class ServerMalformedAnswer(Message):
    """The server answered with something that is not a chat completion."""

    key: ClassVar[str] = "server.malformed"


class ServerStatusRefused(Message):
    """The server refused a request with HTTP ``status`` (4xx), for a reason not recognised."""

    key: ClassVar[str] = "server.status_refused"
    status: int


# ---------------------------------------------------------------- gm doctor (words)


class DoctorServer(Message):
    """The server probed."""

    key: ClassVar[str] = "doctor.server"
    url: str


class DoctorModel(Message):
    """The model probed."""

    key: ClassVar[str] = "doctor.model"
    model: str


class DoctorModels(Message):
    """The models the server lists (the first eight)."""

    key: ClassVar[str] = "doctor.models"
    models: str


class DoctorContext(Message):
    """The server's context length."""

    key: ClassVar[str] = "doctor.context"
    tokens: int


class DoctorSlots(Message):
    """The server's slots and the setting that matches them."""

    key: ClassVar[str] = "doctor.slots"
    slots: int


class DoctorUnreachable(Message):
    """Nothing answered (``cause``: the client's words)."""

    key: ClassVar[str] = "doctor.unreachable"
    cause: str


class DoctorPlain(Message):
    """The answer to a plain question."""

    key: ClassVar[str] = "doctor.plain"
    answer: str


class DoctorUsageReported(Message):
    """The server reports token usage."""

    key: ClassVar[str] = "doctor.usage_reported"


class DoctorUsageEstimated(Message):
    """The server reports no token usage."""

    key: ClassVar[str] = "doctor.usage_estimated"


class DoctorRequired(Message):
    """The answer under tool_choice required."""

    key: ClassVar[str] = "doctor.required"
    answer: str


class DoctorReask(Message):
    """The answer to the corrective re-ask."""

    key: ClassVar[str] = "doctor.reask"
    answer: str


class DoctorNamed(Message):
    """The answer to a tool_choice naming the tool."""

    key: ClassVar[str] = "doctor.named"
    answer: str


class DoctorParallelOff(Message):
    """Two calls asked with parallel_tool_calls false."""

    key: ClassVar[str] = "doctor.parallel_off"
    answer: str


class DoctorParallelLeftOut(Message):
    """Two calls asked without parallel_tool_calls."""

    key: ClassVar[str] = "doctor.parallel_left_out"
    answer: str


class DoctorLoose(Message):
    """Arguments outside the enum asked, without strict."""

    key: ClassVar[str] = "doctor.loose"
    answer: str


class DoctorStrict(Message):
    """The same with strict."""

    key: ClassVar[str] = "doctor.strict"
    answer: str


class DoctorLatency(Message):
    """The probes' latency (two requests or more)."""

    key: ClassVar[str] = "doctor.latency"
    median: int
    longest: int
    requests: int


class DoctorLatencyOne(Message):
    """The latency of the one probe."""

    key: ClassVar[str] = "doctor.latency_one"
    median: int
    longest: int


class DoctorQuirk(Message):
    """A known quirk (rendered)."""

    key: ClassVar[str] = "doctor.quirk"
    quirk: str


class DoctorProblem(Message):
    """A configuration error (rendered)."""

    key: ClassVar[str] = "doctor.problem"
    problem: str


class DoctorRecommended(Message):
    """The profile the findings fit best."""

    key: ClassVar[str] = "doctor.recommended"
    profile: str


class DoctorButMeasured(Message):
    """A flag the recommended profile has otherwise than measured."""

    key: ClassVar[str] = "doctor.but_measured"
    flag: str
    value: str
    said: str


class DoctorConfigured(Message):
    """A flag the configured profile has otherwise than measured."""

    key: ClassVar[str] = "doctor.configured"
    profile: str
    flag: str
    said: str
    measured: str


class DoctorNotProbed(Message):
    """A probe not made."""

    key: ClassVar[str] = "doctor.not_probed"


class DoctorACall(Message):
    """A call sent as a call."""

    key: ClassVar[str] = "doctor.a_call"


class DoctorACallAfterText(Message):
    """A call with text before it."""

    key: ClassVar[str] = "doctor.a_call_after_text"


class DoctorCallInText(Message):
    """A call written in the text."""

    key: ClassVar[str] = "doctor.call_in_text"


class DoctorTextOnly(Message):
    """Text and no call."""

    key: ClassVar[str] = "doctor.text_only"


class DoctorOk(Message):
    """A plain answer came."""

    key: ClassVar[str] = "doctor.ok"


class DoctorEmpty(Message):
    """An empty reply."""

    key: ClassVar[str] = "doctor.empty"


class DoctorRefused(Message):
    """A probe the server refused (``error``: its words)."""

    key: ClassVar[str] = "doctor.refused"
    error: str


class DoctorFailed(Message):
    """A probe that failed (``error``: the client's or the server's words)."""

    key: ClassVar[str] = "doctor.failed"
    error: str


class DoctorFailedOnProblem(Message):
    """A probe that failed on a configuration error (reported once, as a problem)."""

    key: ClassVar[str] = "doctor.failed_on_problem"


class DoctorCalls(Message):
    """Two calls or more came back."""

    key: ClassVar[str] = "doctor.calls"
    calls: int


class DoctorOneCall(Message):
    """One call came back."""

    key: ClassVar[str] = "doctor.one_call"


class DoctorInEnum(Message):
    """The arguments kept to the enum."""

    key: ClassVar[str] = "doctor.in_enum"


class DoctorOutsideEnum(Message):
    """An argument outside the enum."""

    key: ClassVar[str] = "doctor.outside_enum"
    target: str


class QuirkToolsDropped(Message):
    """Tools dropped silently."""

    key: ClassVar[str] = "doctor.quirk_tools_dropped"


class QuirkCallsInText(Message):
    """Calls written in the text."""

    key: ClassVar[str] = "doctor.quirk_calls_in_text"


class QuirkTextBeforeCall(Message):
    """Free text before the call."""

    key: ClassVar[str] = "doctor.quirk_text_before_call"


class QuirkRequiredEmpty(Message):
    """tool_choice=required answered empty."""

    key: ClassVar[str] = "doctor.quirk_required_empty"


class QuirkToolChoiceIgnored(Message):
    """tool_choice ignored."""

    key: ClassVar[str] = "doctor.quirk_tool_choice_ignored"


class QuirkNamedRefused(Message):
    """A tool_choice naming a function refused."""

    key: ClassVar[str] = "doctor.quirk_named_refused"


class QuirkSeveralCalls(Message):
    """Several calls without parallel_tool_calls."""

    key: ClassVar[str] = "doctor.quirk_several_calls"


class QuirkStrictOnly(Message):
    """Schemas enforced only with strict."""

    key: ClassVar[str] = "doctor.quirk_strict_only"


# ---------------------------------------------------------------- argument values (words)


class NotSeconds(Message):
    """A number of seconds (``--request-deadline``, ``--request-timeout``) that is not a
    positive number."""

    key: ClassVar[str] = "args.value.not_seconds"
    value: str


class NotACount(Message):
    """``--max-concurrent``: not a whole number of 0 or more."""

    key: ClassVar[str] = "args.value.not_a_count"
    value: str


class NotADeal(Message):
    """``--deal``: not nine role numbers."""

    key: ClassVar[str] = "args.value.not_a_deal"
    value: str


# ---------------------------------------------------------------- ledger: fallbacks and recoveries (words)


class LedgerFallbacks(Message):
    """How many turns a fallback played (``causes``: the counts by cause, rendered, or empty)."""

    key: ClassVar[str] = "ledger.fallbacks"
    count: int
    causes: str


class LedgerRecoveries(Message):
    """The turn runner's recoveries (``kinds``: the counts by kind, rendered)."""

    key: ClassVar[str] = "ledger.recoveries"
    kinds: str


class LedgerCounted(Message):
    """One cause or kind with its count, inside a fallbacks or recoveries line."""

    key: ClassVar[str] = "ledger.counted"
    what: str
    count: int


class CauseTextOnly(Message):
    """A fallback's cause: text only, after the corrective re-ask."""

    key: ClassVar[str] = "ledger.cause_text_only"


class CauseInvalidArguments(Message):
    """A fallback's cause: arguments the tool refused."""

    key: ClassVar[str] = "ledger.cause_invalid_arguments"


class CauseBrokenJson(Message):
    """A fallback's cause: arguments that were not a JSON object."""

    key: ClassVar[str] = "ledger.cause_broken_json"


class CauseUnknownTool(Message):
    """A fallback's cause: a tool not offered."""

    key: ClassVar[str] = "ledger.cause_unknown_tool"


class CauseRefusedByRules(Message):
    """A fallback's cause: an action the rules refused."""

    key: ClassVar[str] = "ledger.cause_refused_by_rules"


class CauseUnreadableAnswer(Message):
    """A fallback's cause: a server answer that could not be read."""

    key: ClassVar[str] = "ledger.cause_unreadable_answer"


class CauseNarrationRefused(Message):
    """A fallback's cause: narration that did not match the engine."""

    key: ClassVar[str] = "ledger.cause_narration_refused"


class CauseResponseCap(Message):
    """A fallback's cause: the cap on answers per turn."""

    key: ClassVar[str] = "ledger.cause_response_cap"


class CauseNoAction(Message):
    """A fallback's cause: the turn ended with no action and no error."""

    key: ClassVar[str] = "ledger.cause_no_action"


class CauseOther(Message):
    """A fallback's cause not known by name."""

    key: ClassVar[str] = "ledger.cause_other"


class RecoveryReask(Message):
    """A recovery: the one corrective re-ask after a text-only answer."""

    key: ClassVar[str] = "ledger.recovery_reask"


class RecoveryCallsInText(Message):
    """A recovery: tool calls read from an answer's text."""

    key: ClassVar[str] = "ledger.recovery_calls_in_text"


# ---------------------------------------------------------------- doctor: what cannot be told (words)


class DoctorMeasured(Message):
    """The profile flags the probes showed (``flags``: ``name=value`` pairs)."""

    key: ClassVar[str] = "doctor.measured"
    flags: str


class DoctorUnknown(Message):
    """A profile flag no probe could show, and why (rendered)."""

    key: ClassVar[str] = "doctor.unknown"
    flag: str
    why: str


class DoctorNoRecommendation(Message):
    """No profile can be recommended: no flag was shown."""

    key: ClassVar[str] = "doctor.no_recommendation"


class DoctorAlike(Message):
    """The other profiles that fit what was measured as well as the recommended one."""

    key: ClassVar[str] = "doctor.alike"
    profiles: str


class UnknownToolsDropped(Message):
    """Why a flag is unknown: the server dropped the tools."""

    key: ClassVar[str] = "doctor.unknown_tools_dropped"


class UnknownNoCallAtAll(Message):
    """Why a flag is unknown: no tool call came back as a call in any probe."""

    key: ClassVar[str] = "doctor.unknown_no_call_at_all"


class UnknownNoCallHere(Message):
    """Why a flag is unknown: the probe that would show it got no call back."""

    key: ClassVar[str] = "doctor.unknown_no_call_here"


class UnknownFailed(Message):
    """Why a flag is unknown: its probe failed."""

    key: ClassVar[str] = "doctor.unknown_failed"


class UnknownNotProbed(Message):
    """Why a flag is unknown: its probe was not made."""

    key: ClassVar[str] = "doctor.unknown_not_probed"


# ---------------------------------------------------------------- gm werewolf simulate and gm bench


class SimulateGames(Message):
    """The number of simulated games and their seed."""

    key: ClassVar[str] = "simulate.games"
    games: int
    seed: int


class SimulateWins(Message):
    """One team's wins and their share (``rate`` already formatted)."""

    key: ClassVar[str] = "simulate.wins"
    team: str
    count: int
    rate: str


class SimulateDays(Message):
    """The mean length of a game in days."""

    key: ClassVar[str] = "simulate.days"
    days: str


class SimulateActions(Message):
    """The mean number of actions a game."""

    key: ClassVar[str] = "simulate.actions"
    actions: str


class SimulateSpeed(Message):
    """Games per wall-clock second."""

    key: ClassVar[str] = "simulate.speed"
    rate: str
    seconds: str


class SimulateCpuSpeed(Message):
    """Games per CPU second."""

    key: ClassVar[str] = "simulate.cpu_speed"
    rate: str
    seconds: str


class SimulateProgress(Message):
    """How far a long simulation has come."""

    key: ClassVar[str] = "simulate.progress"
    done: int
    total: int


class BenchNoKind(Message):
    """``gm bench`` without a benchmark named."""

    key: ClassVar[str] = "bench.no_kind"


class BenchSkipped(Message):
    """A command of the mix whose system is not registered."""

    key: ClassVar[str] = "bench.skipped"
    system: str
    command: str


class BenchNothingRuns(Message):
    """No command of the mix can run."""

    key: ClassVar[str] = "bench.nothing_runs"


class BenchCountTooSmall(Message):
    """``--count`` below 1."""

    key: ClassVar[str] = "bench.count_too_small"


class BenchMix(Message):
    """The commands the benchmark runs."""

    key: ClassVar[str] = "bench.mix"
    commands: str


class BenchLoad(Message):
    """The machine's load average around the run."""

    key: ClassVar[str] = "bench.load"
    before: str
    after: str


class BenchDone(Message):
    """How many commands ran in how long."""

    key: ClassVar[str] = "bench.done"
    count: int
    wall: str
    cpu: str


class BenchCpuRate(Message):
    """Commands per CPU second."""

    key: ClassVar[str] = "bench.cpu_rate"
    rate: str


class BenchCpuTooShort(Message):
    """A run too short for a CPU figure."""

    key: ClassVar[str] = "bench.cpu_too_short"


class BenchWallRate(Message):
    """Commands per wall-clock second."""

    key: ClassVar[str] = "bench.wall_rate"
    rate: str


# ================================================================ english2 (issue 11, NAME=english2)
# The combat engine's other errors (a character, party, enemy or encounter that breaks a rule,
# an action at the wrong pause, a saved file that cannot be read), a pydantic validation error
# in the player's words, ...

# ---------------------------------------------------------------- combat: a clause, a file


class WithClause(Message):
    """A combat error's reason with the clause of the document or option it breaks."""

    key: ClassVar[str] = "combat.with_clause"
    reason: Message
    rule: str


class SaveFileProblem(Message):
    """A problem of a saved file (``where``: its path, and a member of a party)."""

    key: ClassVar[str] = "combat.in_file"
    where: str
    problem: Message


# ---------------------------------------------------------------- combat: characters, parties


class NameBlank(Message):
    """A character's name that is blank or starts or ends with spaces."""

    key: ClassVar[str] = "combat.invalid.name_blank"


class WeaponNeedsRank(Message):
    """A 名匠/伝説 weapon (``grade``) above the character's rank (§9.2)."""

    key: ClassVar[str] = "combat.invalid.weapon_needs_rank"
    grade: str
    bonus: int
    needed: str
    name: str
    rank: str


class ShieldWithTwoHanded(Message):
    """A shield with a two-handed weapon (§10.1)."""

    key: ClassVar[str] = "combat.invalid.shield_with_two_handed"
    shield: str
    weapon: str


class MoreSlotsThanRank(Message):
    """More spell slots than the rank has (§5.1)."""

    key: ClassVar[str] = "combat.invalid.more_slots_than_rank"
    rank: str
    most: int
    given: int


class SlotsLeftAboveMaximum(Message):
    """More slots left than the maximum (§5.1)."""

    key: ClassVar[str] = "combat.invalid.slots_left_above_maximum"
    left: int
    most: int


class SpellListedTwice(Message):
    """A spell in the list of spells known twice (§5.1)."""

    key: ClassVar[str] = "combat.invalid.spell_listed_twice"


class SpellsAboveSlots(Message):
    """More spells known than slots (§5.1)."""

    key: ClassVar[str] = "combat.invalid.spells_above_slots"
    count: int
    slots: int


class CostsTookMaxHp(Message):
    """Lasting costs that took the maximum HP below 1 (§5.2)."""

    key: ClassVar[str] = "combat.invalid.costs_took_max_hp"


class HpAboveMaximum(Message):
    """HP above the maximum (a character or an enemy)."""

    key: ClassVar[str] = "combat.invalid.hp_above_maximum"
    hp: int
    most: int


class ZeroHpStanding(Message):
    """A character at 0 HP whose status is 正常."""

    key: ClassVar[str] = "combat.invalid.zero_hp_standing"


class DownWithHp(Message):
    """A character down or dead (``status``) with HP left."""

    key: ClassVar[str] = "combat.invalid.down_with_hp"
    status: str
    hp: int


class UnknownSpellOf(Message):
    """A spell name no spell has, with the known ones (§6.2)."""

    key: ClassVar[str] = "combat.invalid.unknown_spell"
    given: str
    known: str


class SpellsNotAList(Message):
    """Spells given as something else than a list of names (§6.2)."""

    key: ClassVar[str] = "combat.invalid.spells_not_a_list"
    given: str


class NoSuchWeapon(Message):
    """A weapon that is not in the list (§9.2)."""

    key: ClassVar[str] = "combat.invalid.no_such_weapon"
    given: str
    known: str


class NoSuchArmour(Message):
    """Armour that is not in the list (§9.3)."""

    key: ClassVar[str] = "combat.invalid.no_such_armour"
    given: str
    known: str


class NoSuchShield(Message):
    """A shield that is not one of §10.2's."""

    key: ClassVar[str] = "combat.invalid.no_such_shield"
    given: str
    known: str


class NoSuchRank(Message):
    """A rank no rank or alias has (§14.1)."""

    key: ClassVar[str] = "combat.invalid.no_such_rank"
    given: str
    known: str


class PartyEmpty(Message):
    """A party without a character."""

    key: ClassVar[str] = "combat.invalid.party_empty"


class PartyTooLarge(Message):
    """A party of more than 6."""

    key: ClassVar[str] = "combat.invalid.party_too_large"
    count: int


class CharactersShareName(Message):
    """Two characters of a party with one name."""

    key: ClassVar[str] = "combat.invalid.characters_share_name"
    names: str


# ---------------------------------------------------------------- combat: enemies, encounters


class RegenerationRange(Message):
    """再生 outside 1..5 (§3.1)."""

    key: ClassVar[str] = "combat.invalid.regeneration_range"
    amount: int


class HinderRange(Message):
    """状態干渉 outside 1..2 (§3.1)."""

    key: ClassVar[str] = "combat.invalid.hinder_range"
    amount: int


class AbilityRange(Message):
    """An ability outside ±1..2 (§3.1; ``amount`` signed)."""

    key: ClassVar[str] = "combat.invalid.ability_range"
    amount: str


class TooManyAbilities(Message):
    """An enemy with more than two abilities (§3.1)."""

    key: ClassVar[str] = "combat.invalid.too_many_abilities"


class FixedApTooLow(Message):
    """An enemy's fixed AP below minus its dice."""

    key: ClassVar[str] = "combat.invalid.fixed_ap_too_low"
    kind: str
    least: int
    dice: int
    ap: int


class AbilitiesNotPairs(Message):
    """Abilities given as something else than (kind, amount) pairs (§3.1)."""

    key: ClassVar[str] = "combat.invalid.abilities_not_pairs"
    given: str


class NotAnEnemyKind(Message):
    """An enemy kind that is not 雑魚, エリート or ボス (§1.2)."""

    key: ClassVar[str] = "combat.invalid.not_an_enemy_kind"
    given: str
    known: str


class NotAnAbility(Message):
    """An ability kind that is not one of §3.1's."""

    key: ClassVar[str] = "combat.invalid.not_an_ability"
    given: str
    known: str


class EncounterEmpty(Message):
    """An encounter without an enemy."""

    key: ClassVar[str] = "combat.invalid.encounter_empty"


class EnemiesShareName(Message):
    """Two enemies of an encounter with one name."""

    key: ClassVar[str] = "combat.invalid.enemies_share_name"


class DifficultyTwice(Message):
    """A difficulty adjustment listed twice (§3.3)."""

    key: ClassVar[str] = "combat.invalid.difficulty_twice"


class DifficultiesCancel(Message):
    """Two difficulty adjustments that cancel out (§3.3)."""

    key: ClassVar[str] = "combat.invalid.difficulties_cancel"
    first: str
    second: str


class TooQuickHpLimit(Message):
    """瞬殺 would take an enemy's HP above the limit (§3.3)."""

    key: ClassVar[str] = "combat.invalid.too_quick_hp_limit"
    name: str
    hp: int
    limit: int
    most: int


class TooManyOfKind(Message):
    """More enemies of a kind than §3.2 allows."""

    key: ClassVar[str] = "combat.invalid.too_many_of_kind"
    count: int
    kind: str
    limit: int


class NotAFightKind(Message):
    """A fight kind or difficulty that is not one of §3.3's."""

    key: ClassVar[str] = "combat.invalid.not_a_fight_kind"
    given: str
    known: str


class ApOffsetRange(Message):
    """An AP offset outside §2.3's range for the lead kind (signed numbers)."""

    key: ClassVar[str] = "combat.invalid.ap_offset_range"
    kind: str
    low: str
    high: str
    offset: str


class NobodyStanding(Message):
    """A party with nobody standing."""

    key: ClassVar[str] = "combat.invalid.nobody_standing"


class NoEnemyStanding(Message):
    """An encounter with no enemy standing."""

    key: ClassVar[str] = "combat.invalid.no_enemy_standing"


class PcAndEnemyShareName(Message):
    """A PC and an enemy with one name."""

    key: ClassVar[str] = "combat.invalid.pc_and_enemy_share_name"
    names: str


class ForecastNoRegeneration(Message):
    """The forecast asked about an enemy with 再生."""

    key: ClassVar[str] = "combat.invalid.forecast_no_regeneration"


class ForecastRounds(Message):
    """A forecast over a number of rounds outside 1..50."""

    key: ClassVar[str] = "combat.invalid.forecast_rounds"
    rounds: int


class ForecastBothSides(Message):
    """A forecast with nobody standing on a side."""

    key: ClassVar[str] = "combat.invalid.forecast_both_sides"


class SimulateSizes(Message):
    """``gm combat simulate`` without a rank or with a party size outside 1..6."""

    key: ClassVar[str] = "combat.invalid.simulate_sizes"


class SimulateFights(Message):
    """``gm combat simulate --fights`` outside 1..100000."""

    key: ClassVar[str] = "combat.invalid.simulate_fights"


# ---------------------------------------------------------------- combat: an action at the wrong pause


class BattleOver(Message):
    """Any action after the battle ended."""

    key: ClassVar[str] = "combat.order.battle_over"


class ExpectSetup(Message):
    """What SETUP takes."""

    key: ClassVar[str] = "combat.order.expect_setup"


class ExpectRoll(Message):
    """What ROLL takes."""

    key: ClassVar[str] = "combat.order.expect_roll"


class ExpectJudge(Message):
    """What JUDGE takes."""

    key: ClassVar[str] = "combat.order.expect_judge"


class ExpectEnd(Message):
    """What NARRATIVE takes once the battle is decided."""

    key: ClassVar[str] = "combat.order.expect_end"


class ExpectNextRound(Message):
    """What NARRATIVE takes while both sides stand."""

    key: ClassVar[str] = "combat.order.expect_next_round"


class ExpectNothing(Message):
    """What an ended battle takes."""

    key: ClassVar[str] = "combat.order.expect_nothing"


class WrongPause(Message):
    """An action (``action``: its kind, quoted) taken at another pause than its own."""

    key: ClassVar[str] = "combat.order.wrong_pause"
    action: str
    allowed: str
    phase: str
    round: int
    expected: Message


class DecidedTakeEnd(Message):
    """``next_round`` in a battle already decided (``outcome``)."""

    key: ClassVar[str] = "combat.order.decided_take_end"
    phase: str
    outcome: str


class UndecidedTakeNextRound(Message):
    """``end`` while both sides still stand."""

    key: ClassVar[str] = "combat.order.undecided_take_next_round"
    phase: str


class CastAtWrongPause(Message):
    """A spell cast at another pause than its windows."""

    key: ClassVar[str] = "combat.order.cast_at_wrong_pause"
    spell: str
    windows: str
    phase: str


# ---------------------------------------------------------------- combat: a saved file


class SaveTooDeep(Message):
    """JSON nested too deeply to be a save file."""

    key: ClassVar[str] = "combat.storage.too_deep"


class SaveNotJson(Message):
    """Not valid JSON at a place."""

    key: ClassVar[str] = "combat.storage.not_json"
    line: int
    column: int


class SaveNotJsonTruncated(Message):
    """Not valid JSON at a place, and the file looks cut short."""

    key: ClassVar[str] = "combat.storage.not_json_truncated"
    line: int
    column: int


class SaveNotAnEnvelope(Message):
    """JSON that is not an object with format/version/data."""

    key: ClassVar[str] = "combat.storage.not_an_envelope"


class SaveMissing(Message):
    """An envelope that lacks some of format/version/data."""

    key: ClassVar[str] = "combat.storage.missing"
    missing: str


class SaveOtherKind(Message):
    """A file of another kind than the one asked for."""

    key: ClassVar[str] = "combat.storage.other_kind"
    found: str
    wanted: str


class SaveVersion(Message):
    """A version this program does not read."""

    key: ClassVar[str] = "combat.storage.version"
    found: str
    wanted: int


class SaveNotUtf8(Message):
    """A file that is not UTF-8 text."""

    key: ClassVar[str] = "combat.storage.not_utf8"


class SavePartyNotList(Message):
    """A party's data that is not a list."""

    key: ClassVar[str] = "combat.storage.party_not_list"


class SaveMember(Message):
    """A problem of a member of a saved party (``number``: 1-based)."""

    key: ClassVar[str] = "combat.storage.member"
    number: int
    problem: Message


class SaveBattleParts(Message):
    """A battle's data without 'state' and 'source_history'."""

    key: ClassVar[str] = "combat.storage.battle_parts"


class SaveNoSeed(Message):
    """A battle without a seed, loaded without a dice source."""

    key: ClassVar[str] = "combat.storage.no_seed"


class SaveHistoryNotList(Message):
    """source_history that is not a list."""

    key: ClassVar[str] = "combat.storage.history_not_list"


class SaveDieDiffers(Message):
    """A recorded die the seed does not reproduce."""

    key: ClassVar[str] = "combat.storage.die_differs"
    number: int
    seed: str


class SaveHistoryEntry(Message):
    """A source_history entry that is not [value, sides]."""

    key: ClassVar[str] = "combat.storage.history_entry"
    given: str


class NotACombatFile(Message):
    """``gm combat show`` given a file that is no character, party, encounter or battle."""

    key: ClassVar[str] = "combat.storage.not_a_combat_file"


class NotABattle(Message):
    """A battle state's text that is not valid (``problem``: the validation's)."""

    key: ClassVar[str] = "combat.storage.not_a_battle"
    problem: Message


# ---------------------------------------------------------------- validation (pydantic's errors, in words)


class FieldProblem(Message):
    """A problem of a field (``field``: its path, ``options.narrative_priority_ratio``)."""

    key: ClassVar[str] = "validation.field"
    field: str
    problem: Message


class ProblemsAnd(Message):
    """Two problems or more, one after the other."""

    key: ClassVar[str] = "validation.and"
    first: Message
    rest: Message


class ValueNotJson(Message):
    """Text that is not JSON."""

    key: ClassVar[str] = "validation.not_json"


class ValueNotJsonAt(Message):
    """Text that is not JSON, from a place on."""

    key: ClassVar[str] = "validation.not_json_at"
    line: int
    column: int


class UnknownField(Message):
    """A field the record does not have (``accepted``: the ones it has)."""

    key: ClassVar[str] = "validation.unknown_field"
    accepted: str


class FieldMissing(Message):
    """A field that must be given."""

    key: ClassVar[str] = "validation.missing"


class NotTrueOrFalse(Message):
    """A value that is not true or false."""

    key: ClassVar[str] = "validation.not_bool"
    value: str


class NotText(Message):
    """A value that is not a string."""

    key: ClassVar[str] = "validation.not_text"
    value: str


class ValueAtLeast(Message):
    """A value below its least."""

    key: ClassVar[str] = "validation.at_least"
    value: str
    limit: str


class ValueAbove(Message):
    """A value not above its bound."""

    key: ClassVar[str] = "validation.above"
    value: str
    limit: str


class ValueAtMost(Message):
    """A value above its most."""

    key: ClassVar[str] = "validation.at_most"
    value: str
    limit: str


class ValueBelow(Message):
    """A value not below its bound."""

    key: ClassVar[str] = "validation.below"
    value: str
    limit: str


class TooShortText(Message):
    """A string shorter than its least."""

    key: ClassVar[str] = "validation.too_short_text"
    value: str
    least: int


class TooLongText(Message):
    """A string longer than its most."""

    key: ClassVar[str] = "validation.too_long_text"
    value: str
    most: int


class TooFewItems(Message):
    """A list shorter than its least."""

    key: ClassVar[str] = "validation.too_few_items"
    least: int


class TooManyItems(Message):
    """A list longer than its most."""

    key: ClassVar[str] = "validation.too_many_items"
    most: int


class NotAnObject(Message):
    """A value that should be a JSON object."""

    key: ClassVar[str] = "validation.not_an_object"


class NotAList(Message):
    """A value that should be a list."""

    key: ClassVar[str] = "validation.not_a_list"


class InvalidValue(Message):
    """Any other refused value (``detail``: the check's own words)."""

    key: ClassVar[str] = "validation.invalid"
    value: str
    detail: str


class BadOptions(Message):
    """``--options`` that are not valid rule options."""

    key: ClassVar[str] = "validation.bad_options"
    problem: Message


# ---------------------------------------------------------------- adventure: character creation


class NameQuestion(Message):
    """The name question."""

    key: ClassVar[str] = "adventure.creation.name_question"


class NameConfirm(Message):
    """A name that may be something else, asked about."""

    key: ClassVar[str] = "adventure.creation.name_confirm"
    name: str


class NameTaken(Message):
    """The name taken."""

    key: ClassVar[str] = "adventure.creation.name_taken"
    name: str


class NameAgain(Message):
    """A name not confirmed: asked again."""

    key: ClassVar[str] = "adventure.creation.name_again"


class NameEmpty(Message):
    """An empty name."""

    key: ClassVar[str] = "adventure.creation.name_empty"


class NameControl(Message):
    """A name with control characters."""

    key: ClassVar[str] = "adventure.creation.name_control"


class CharacterNameTooLong(Message):
    """A name over the longest taken."""

    key: ClassVar[str] = "adventure.creation.name_too_long"
    most: int
    length: int


class NameNoLetters(Message):
    """A name of digits or signs only."""

    key: ClassVar[str] = "adventure.creation.name_no_letters"


class NameCommand(Message):
    """A command given as the name."""

    key: ClassVar[str] = "adventure.creation.name_command"


class NameSentence(Message):
    """A sentence given as the name."""

    key: ClassVar[str] = "adventure.creation.name_sentence"


class NameOnly(Message):
    """A name with a rank or equipment word in it."""

    key: ClassVar[str] = "adventure.creation.name_only"


class RankQuestion(Message):
    """The rank question with the ranks' table."""

    key: ClassVar[str] = "adventure.creation.rank_question"
    recommended: str
    table: str


class RankRow(Message):
    """A rank with its HP, AP dice and slots."""

    key: ClassVar[str] = "adventure.creation.rank_row"
    number: int
    rank: str
    hp: int
    dice: int
    slots: int


class RankAnswer(Message):
    """An answer that is no rank."""

    key: ClassVar[str] = "adventure.creation.rank_answer"


class RankTaken(Message):
    """The rank taken."""

    key: ClassVar[str] = "adventure.creation.rank_taken"
    rank: str


class ModeQuestion(Message):
    """How the equipment and spells are chosen."""

    key: ClassVar[str] = "adventure.creation.mode_question"


class ModeAnswer(Message):
    """An answer that is no way of choosing."""

    key: ClassVar[str] = "adventure.creation.mode_answer"


class ModeCustom(Message):
    """The player chooses each piece."""

    key: ClassVar[str] = "adventure.creation.mode_custom"


class MadeAuto(Message):
    """Made by おまかせ."""

    key: ClassVar[str] = "adventure.creation.made_auto"


class MadeUnselected(Message):
    """Made by 未選択."""

    key: ClassVar[str] = "adventure.creation.made_unselected"


class WeaponQuestion(Message):
    """The weapon question."""

    key: ClassVar[str] = "adventure.creation.weapon_question"
    items: str


class TwoHandedItem(Message):
    """A two-handed weapon of the list."""

    key: ClassVar[str] = "adventure.creation.two_handed_item"
    number: int
    name: str
    bonus: int


class ArmourQuestion(Message):
    """The armour question."""

    key: ClassVar[str] = "adventure.creation.armour_question"
    items: str


class ArmourItem(Message):
    """Armour of the list."""

    key: ClassVar[str] = "adventure.creation.armour_item"
    number: int
    name: str
    reduction: int


class ShieldQuestion(Message):
    """The shield question."""

    key: ClassVar[str] = "adventure.creation.shield_question"
    items: str


class SpellsQuestion(Message):
    """The spells question."""

    key: ClassVar[str] = "adventure.creation.spells_question"
    slots: int
    spells: str


class WeaponAboveRank(Message):
    """A weapon of the list above the rank."""

    key: ClassVar[str] = "adventure.creation.weapon_above_rank"
    weapon: str
    needed: str


class WeaponAnswer(Message):
    """An answer that is no weapon of the list."""

    key: ClassVar[str] = "adventure.creation.weapon_answer"


class WeaponTaken(Message):
    """The weapon taken."""

    key: ClassVar[str] = "adventure.creation.weapon_taken"
    weapon: str


class ArmourAnswer(Message):
    """An answer that is no armour of the list."""

    key: ClassVar[str] = "adventure.creation.armour_answer"


class ArmourTaken(Message):
    """The armour taken."""

    key: ClassVar[str] = "adventure.creation.armour_taken"
    armour: str


class ShieldAnswer(Message):
    """An answer that is no shield."""

    key: ClassVar[str] = "adventure.creation.shield_answer"


class ShieldTwoHandedAnswer(Message):
    """A shield with a two-handed weapon."""

    key: ClassVar[str] = "adventure.creation.shield_two_handed"
    weapon: str


class ShieldTaken(Message):
    """The shield taken."""

    key: ClassVar[str] = "adventure.creation.shield_taken"
    shield: str


class SpellsUnknownAnswer(Message):
    """Spells no spell has."""

    key: ClassVar[str] = "adventure.creation.spells_unknown"
    unknown: str


class SpellTwiceAnswer(Message):
    """A spell named twice."""

    key: ClassVar[str] = "adventure.creation.spell_twice"


class SpellsAboveRank(Message):
    """More spells than the rank's slots."""

    key: ClassVar[str] = "adventure.creation.spells_above_rank"
    rank: str
    slots: int
    count: int


class CannotMake(Message):
    """A combination the rules refuse: chosen again from the weapon."""

    key: ClassVar[str] = "adventure.creation.cannot_make"
    why: Message


class CharacterMade(Message):
    """The character is made."""

    key: ClassVar[str] = "adventure.creation.made"


class CharacterMadeSheet(Message):
    """The character is made, with its sheet's line."""

    key: ClassVar[str] = "adventure.creation.made_sheet"
    sheet: str


class OccupationQuestion(Message):
    """The occupation question (Call of Cthulhu)."""

    key: ClassVar[str] = "adventure.creation.occupation_question"
    rows: str


class CallingQuestion(Message):
    """The calling question (The One Ring)."""

    key: ClassVar[str] = "adventure.creation.calling_question"
    rows: str


class OccupationDetail(Message):
    """An occupation's or calling's skills and HP, after its name and text."""

    key: ClassVar[str] = "adventure.creation.occupation_detail"
    skills: str
    hp: int


class OccupationAnswer(Message):
    """An answer that is none of the list."""

    key: ClassVar[str] = "adventure.creation.occupation_answer"
    count: int


class OccupationTaken(Message):
    """The occupation or calling taken."""

    key: ClassVar[str] = "adventure.creation.occupation_taken"
    name: str


class SkillsQuestion(Message):
    """The extra skills question."""

    key: ClassVar[str] = "adventure.creation.skills_question"
    picks: int
    value: str
    extras: str


class SkillAnswer(Message):
    """An answer that is no skill of the list."""

    key: ClassVar[str] = "adventure.creation.skill_answer"


class SkillsExactly(Message):
    """Not the number of different skills asked for."""

    key: ClassVar[str] = "adventure.creation.skills_exactly"
    picks: int
    given: int


class CreationHelp(Message):
    """/help during the creation (``stop``: how to stop, :class:`CreationQuitHint` at a
    terminal, :class:`HelpLeaveThePage` on a web page)."""

    key: ClassVar[str] = "adventure.creation.creation_help"
    stop: str


# ---------------------------------------------------------------- recorded summaries


class McpSummary(Message):
    """How an MCP session ended, as its transcript records it: the calls, the adventure's
    ending, the dice rolled."""

    key: ClassVar[str] = "summary.mcp"
    calls: int
    ending: str
    dice: int


class McpUnfinished(Message):
    """An MCP session whose adventure did not end."""

    key: ClassVar[str] = "summary.mcp_unfinished"
    calls: int
    dice: int


# ---------------------------------------------------------------- gm serve: error bodies


class ServeForbidden(Message):
    """A request without the seat's token (or another table's)."""

    key: ClassVar[str] = "serve.refused.forbidden"


class ServeTooLarge(Message):
    """A request body over the largest read."""

    key: ClassVar[str] = "serve.refused.too_large"


class ServeNotJson(Message):
    """A request body that is not JSON."""

    key: ClassVar[str] = "serve.refused.not_json"


class ServeBadData(Message):
    """A request body that is not an object."""

    key: ClassVar[str] = "serve.refused.bad_data"


class ServeKeyNotText(Message):
    """An API key that is not a string."""

    key: ClassVar[str] = "serve.refused.key_not_text"


class ServeNotDrivenHere(Message):
    """A table no reachable server drives now."""

    key: ClassVar[str] = "serve.refused.not_driven_here"


class ServeTextMissing(Message):
    """An answer without its text."""

    key: ClassVar[str] = "serve.refused.text_missing"


class ServeTranscriptLater(Message):
    """The transcript asked for before the end."""

    key: ClassVar[str] = "serve.refused.transcript_later"


class TableConfigInvalid(Message):
    """A table's form refused (``problem``: which field, what was wrong)."""

    key: ClassVar[str] = "serve.table.config_invalid"
    problem: Message


class ConfigNoModel(Message):
    """An OpenAI-compatible table without a model name."""

    key: ClassVar[str] = "serve.table.config_no_model"


class ConfigNoUrl(Message):
    """An OpenAI-compatible table without the server's URL."""

    key: ClassVar[str] = "serve.table.config_no_url"


class ConfigOfflineServer(Message):
    """An offline table naming a model or a server."""

    key: ClassVar[str] = "serve.table.config_offline_server"


class ConfigRoleAndDeal(Message):
    """P1's role and the deal's P1 disagree."""

    key: ClassVar[str] = "serve.table.config_role_and_deal"
    role: int
    dealt: int


class TableInputTooLong(Message):
    """An answer over the longest taken."""

    key: ClassVar[str] = "serve.table.input_too_long"
    limit: int


class TableUnreadable(Message):
    """An answer with unreadable characters."""

    key: ClassVar[str] = "serve.table.unreadable"


class TableNoQuit(Message):
    """A quit command at a web table."""

    key: ClassVar[str] = "serve.table.no_quit"


class TableAnswerNotStored(Message):
    """The store failed to keep an answer: the question stays, the player may send it again."""

    key: ClassVar[str] = "serve.table.answer_not_stored"


class TableTakenOver(Message):
    """An answer sent to a process that lost the table's lease: another one drives it now."""

    key: ClassVar[str] = "serve.table.taken_over"


class TableOver(Message):
    """An answer after the game's end."""

    key: ClassVar[str] = "serve.table.over"


class TableNotYourTurn(Message):
    """An answer while nothing is asked of P1."""

    key: ClassVar[str] = "serve.table.not_your_turn"


class TableChooseShown(Message):
    """An answer that is none of the buttons shown."""

    key: ClassVar[str] = "serve.table.choose_shown"


class TableServerNotAllowed(Message):
    """A model server the operator did not allow."""

    key: ClassVar[str] = "serve.table.server_not_allowed"
    allowed: str


class TableNoServerAllowed(Message):
    """A model server, where the operator allowed none."""

    key: ClassVar[str] = "serve.table.no_server_allowed"


class TableNoScenario(Message):
    """A scenario that cannot be read."""

    key: ClassVar[str] = "serve.table.no_scenario"
    cause: str


class TableSessionRefused(Message):
    """Options the session refused, in its own words."""

    key: ClassVar[str] = "serve.table.session_refused"
    text: str


# ---------------------------------------------------------------- gm serve: the table store


class Said(Message):
    """A text said in its own words (an error of a program's misuse, for its developer)."""

    key: ClassVar[str] = "serve.store.said"
    text: str


class StoreNeedsPsycopg(Message):
    """A PostgreSQL database without psycopg installed."""

    key: ClassVar[str] = "serve.store.needs_psycopg"
    missing: str


class StoreUnknownScheme(Message):
    """A --database URL of an unknown kind."""

    key: ClassVar[str] = "serve.store.unknown_scheme"
    scheme: str


class StoreNeedsPath(Message):
    """--database sqlite: without a path."""

    key: ClassVar[str] = "serve.store.needs_path"


class StoreIsFolder(Message):
    """--database naming a folder."""

    key: ClassVar[str] = "serve.store.is_folder"
    database: str
    path: str


class StoreCannotOpenPostgres(Message):
    """A PostgreSQL database that cannot be opened (``cause``: the driver's first line)."""

    key: ClassVar[str] = "serve.store.cannot_open_postgres"
    cause: str


class StoreOtherSchema(Message):
    """A database of another table store schema."""

    key: ClassVar[str] = "serve.store.other_schema"
    where: str
    found: int
    wanted: int


class StoreNoWal(Message):
    """SQLite refused the WAL journal."""

    key: ClassVar[str] = "serve.store.no_wal"
    where: str
    mode: str


# ---------------------------------------------------------------- gm serve: the command


class ServeBadPort(Message):
    """``gm serve --port`` outside 1..65535."""

    key: ClassVar[str] = "serve.command.bad_port"
    port: int


class ServeBadAdvertise(Message):
    """``gm serve --advertise`` that is no http(s) URL."""

    key: ClassVar[str] = "serve.command.bad_advertise"
    url: str


class ServeLeaseTooShort(Message):
    """A lease shorter than two ticks."""

    key: ClassVar[str] = "serve.command.lease_too_short"
    lease: str
    tick: str


class ServeBadSeeds(Message):
    """``gm serve --seed`` below 0 or ``--seed-step`` below 1."""

    key: ClassVar[str] = "serve.command.bad_seeds"
    seed: int
    step: int


class ServeOpenInBrowser(Message):
    """``gm serve`` is up."""

    key: ClassVar[str] = "serve.command.open_in_browser"
    url: str


# ---------------------------------------------------------------- gm combat, gm aiwolf and gm mcp lines


class CombatDemoRound(Message):
    """A step's heading in ``gm combat demo``."""

    key: ClassVar[str] = "combat_demo.round"
    label: str
    round: int


class CombatDemoStopped(Message):
    """The demo stopped at its round limit."""

    key: ClassVar[str] = "combat_demo.stopped"
    rounds: int


class CombatDemoEnd(Message):
    """The demo's last line: the dice rolled and the state hash."""

    key: ClassVar[str] = "combat_demo.end"
    dice: int
    state: str


class CombatSimulateTotal(Message):
    """How many fights ``gm combat simulate`` ran, on which seeds, in how long."""

    key: ClassVar[str] = "combat_simulate.total"
    total: int
    per_cell: int
    first: int
    last: int
    seconds: str


class AIWolfLogWritten(Message):
    """Where ``gm aiwolf export`` wrote the AIWolf game log."""

    key: ClassVar[str] = "aiwolf_export.game_log"
    path: str


class AIWolfJsonWritten(Message):
    """Where ``gm aiwolf export`` wrote the JSON log."""

    key: ClassVar[str] = "aiwolf_export.json_log"
    path: str


class AIWolfSeatsRange(Message):
    """``gm aiwolf agent --seats`` outside 1..9."""

    key: ClassVar[str] = "aiwolf_export.seats_range"


class McpServing(Message):
    """Where ``gm mcp --http`` serves."""

    key: ClassVar[str] = "mcp_cli.serving"
    url: str


class McpTranscript(Message):
    """A transcript ``gm mcp`` wrote."""

    key: ClassVar[str] = "mcp_cli.transcript"
    path: str


# --- the commands every werewolf question takes, as its help lists them


class HelpLogCommand(Message):
    """What ``/log`` does, in a help's command list."""

    key: ClassVar[str] = "werewolf.help_list.log"


class HelpVotesCommand(Message):
    """What ``/votes`` does, in a help's command list."""

    key: ClassVar[str] = "werewolf.help_list.votes"


class HelpHelpCommand(Message):
    """What ``/help`` does, in a help's command list."""

    key: ClassVar[str] = "werewolf.help_list.help"


class HelpQuitCommand(Message):
    """What ``/quit`` does, in a help's command list (at a terminal)."""

    key: ClassVar[str] = "werewolf.help_list.quit"


class HelpLeaveThePage(Message):
    """How to stop on a web table, in place of ``/quit`` (which a web table does not take)."""

    key: ClassVar[str] = "werewolf.help_list.leave_the_page"


# --- gm doctor: a refusal quoted, padded strings, a profile when calls come as text


class DoctorRefusedByServer(Message):
    """A probe the server refused with an HTTP status (``said``: the server's own words)."""

    key: ClassVar[str] = "doctor_more.refused_by_server"
    status: int
    said: str


class QuirkPaddedStrings(Message):
    """The quirk: free strings come padded with white space."""

    key: ClassVar[str] = "doctor_more.quirk_padded_strings"


class DoctorProfileOfTheServer(Message):
    """No profile can be measured, since the calls come written in the text, which gm reads
    under every profile (``names``: the profiles to choose from by the server's kind)."""

    key: ClassVar[str] = "doctor_more.profile_of_the_server"
    names: str


# --- a packed transcript cut short, a finished one verified before its end is quoted


class TranscriptPackedCut(Message):
    """A packed transcript (only a finished game is packed) that ends after ``events``
    events without its end line: the file is damaged; there is nothing to continue."""

    key: ClassVar[str] = "transcript_more.packed_cut"
    path: str
    events: int


class ResumePackedCut(Message):
    """``gm resume`` on a packed transcript cut short: damaged, not a stopped session."""

    key: ClassVar[str] = "transcript_more.resume_packed_cut"
    path: str


# --- how to stop an adventure, at a terminal (a web page is closed instead)


class AdventureQuitLine(Message):
    """The adventure help's ``/quit`` line at a terminal."""

    key: ClassVar[str] = "adventure_stop.quit_line"


class CreationQuitHint(Message):
    """The creation help's word on ``/quit`` at a terminal."""

    key: ClassVar[str] = "adventure_stop.creation_quit"


# ---------------------------------------------------------------- adventure: the scene's frame
# What the engine writes around a scenario's own prose (the scenario's titles, texts, labels
# and names stay in the scenario's language; the frame follows the player's).


class SceneTitle(Message):
    """A scene's (or an ending scene's) heading."""

    key: ClassVar[str] = "adventure.scene.title"
    title: str


class SceneExits(Message):
    """The ways out of a scene (``names``: their labels, joined)."""

    key: ClassVar[str] = "adventure.scene.exits"
    names: str


class SceneFeatures(Message):
    """The things of a scene that can be examined."""

    key: ClassVar[str] = "adventure.scene.features"
    names: str


class ScenePeople(Message):
    """The people of a scene who can be talked to."""

    key: ClassVar[str] = "adventure.scene.people"
    names: str


class SceneItems(Message):
    """The items lying in a scene."""

    key: ClassVar[str] = "adventure.scene.items"
    names: str


class SceneChoices(Message):
    """The decisions a scene offers."""

    key: ClassVar[str] = "adventure.scene.choices"
    names: str


class SceneHeld(Message):
    """What the character carries."""

    key: ClassVar[str] = "adventure.scene.held"
    names: str


class SceneMovedTo(Message):
    """The character takes the exit ``exit`` (its label)."""

    key: ClassVar[str] = "adventure.scene.moved_to"
    exit: str


class NpcSays(Message):
    """A person of the scenario says ``text`` (the scenario's words)."""

    key: ClassVar[str] = "adventure.scene.npc_says"
    name: str
    text: str


class ItemTaken(Message):
    """The character picks up the item ``name``; ``text`` is the scenario's description."""

    key: ClassVar[str] = "adventure.scene.item_taken"
    name: str
    text: str


class ItemGiven(Message):
    """An outcome gives the character the item ``name``."""

    key: ClassVar[str] = "adventure.scene.item_given"
    name: str


class ItemUseless(Message):
    """A held item used where it does nothing."""

    key: ClassVar[str] = "adventure.scene.item_useless"
    name: str


class CheckRolled(Message):
    """A scenario check the engine rolled: its label and the dice result's text."""

    key: ClassVar[str] = "adventure.scene.check_rolled"
    label: str
    result: str


class EndingReached(Message):
    """An ending of the scenario: its title and text."""

    key: ClassVar[str] = "adventure.scene.ending"
    title: str
    text: str


class SheetLine(Message):
    """A non-fantasy character's compact status (``extra``: the TN, or nothing)."""

    key: ClassVar[str] = "adventure.scene.sheet_line"
    name: str
    occupation: str
    hp: int
    extra: str
    skills: str


class NoCharacterStatus(Message):
    """``/status`` before the character is made."""

    key: ClassVar[str] = "adventure.scene.no_character"


# ---------------------------------------------------------------- adventure: the offline GM


class GmHelp(Message):
    """What the player may write, outside a fight."""

    key: ClassVar[str] = "adventure.gm.help"


class GmBattleHelp(Message):
    """What the player may write in a fight."""

    key: ClassVar[str] = "adventure.gm.battle_help"


class GmAskWithOptions(Message):
    """A question and, below it, what can be done here (``options``)."""

    key: ClassVar[str] = "adventure.gm.ask_with_options"
    question: str
    options: str


class GmOptionExits(Message):
    """The list of ways on, among the options."""

    key: ClassVar[str] = "adventure.gm.option_exits"
    names: str


class GmOptionExamine(Message):
    """The list of things to examine, among the options."""

    key: ClassVar[str] = "adventure.gm.option_examine"
    names: str


class GmOptionTalk(Message):
    """The list of people to talk to, among the options."""

    key: ClassVar[str] = "adventure.gm.option_talk"
    names: str


class GmOptionTake(Message):
    """The list of items to pick up, among the options."""

    key: ClassVar[str] = "adventure.gm.option_take"
    names: str


class GmOptionChoose(Message):
    """The list of decisions, among the options."""

    key: ClassVar[str] = "adventure.gm.option_choose"
    names: str


class GmOptionSeparator(Message):
    """Between two kinds of options."""

    key: ClassVar[str] = "adventure.gm.option_separator"


class GmNoOptions(Message):
    """The options of a scene with nothing in reach."""

    key: ClassVar[str] = "adventure.gm.no_options"


class GmStatusHint(Message):
    """The status asked for where the GM has no status tool."""

    key: ClassVar[str] = "adventure.gm.status_hint"


class GmRests(Message):
    """The GM rests the party."""

    key: ClassVar[str] = "adventure.gm.rests"


class GmNothingToRestFor(Message):
    """A rest asked for where nothing would come back."""

    key: ClassVar[str] = "adventure.gm.nothing_to_rest_for"


class GmNoOneToFight(Message):
    """An attack asked for outside a fight."""

    key: ClassVar[str] = "adventure.gm.no_one_to_fight"


class GmNoOneToFlee(Message):
    """A flight asked for outside a fight."""

    key: ClassVar[str] = "adventure.gm.no_one_to_flee"


class GmWhatNow(Message):
    """'Go on' said outside a fight: the GM asks for an action in words."""

    key: ClassVar[str] = "adventure.gm.what_now"


class ThingKind(StrEnum):
    """What a verb of the player's takes: the choice of text of :class:`GmWhich` and
    :class:`GmNotAmong`."""

    EXIT = "exit"
    THING = "thing"
    PERSON = "person"
    ITEM = "item"
    HELD = "held"
    CHOICE = "choice"


class GmWhich(Message):
    """The GM asks which thing of a kind (its text is ``adventure.gm.which.<kind>``)."""

    key: ClassVar[str] = "adventure.gm.which"
    kind: ThingKind

    def text_key(self) -> str:
        """``adventure.gm.which.<kind>``."""
        return f"{self.key}.{self.kind.value}"

    def params(self) -> dict[str, str | int]:
        """None: the kind is the choice of text."""
        return {}


class GmWhichOf(Message):
    """A question of :class:`GmWhich` with the candidates (``names``)."""

    key: ClassVar[str] = "adventure.gm.which_of"
    question: Message
    names: str


class GmCanBe(Message):
    """What a verb takes here, as a noun phrase (its text is ``adventure.gm.can_be.<kind>``)."""

    key: ClassVar[str] = "adventure.gm.can_be"
    kind: ThingKind

    def text_key(self) -> str:
        """``adventure.gm.can_be.<kind>``."""
        return f"{self.key}.{self.kind.value}"

    def params(self) -> dict[str, str | int]:
        """None: the kind is the choice of text."""
        return {}


class GmNotAmong(Message):
    """The player named ``thing``, which is not among what a verb takes here (``what``)."""

    key: ClassVar[str] = "adventure.gm.not_among"
    thing: str
    what: Message


class GmWhatAbout(Message):
    """A line that names things (``names``) but no verb."""

    key: ClassVar[str] = "adventure.gm.what_about"
    names: str


class GmUnclear(Message):
    """A line the GM could not read as an action, outside a fight."""

    key: ClassVar[str] = "adventure.gm.unclear"
    line: str


class GmCannotHere(Message):
    """An action with nothing to act on here."""

    key: ClassVar[str] = "adventure.gm.cannot_here"


class GmCannotNow(Message):
    """An action whose tool is not offered now."""

    key: ClassVar[str] = "adventure.gm.cannot_now"


class GmNpcLooks(Message):
    """A person examined: the GM offers to talk."""

    key: ClassVar[str] = "adventure.gm.npc_looks"
    name: str


class GmNoMagic(Message):
    """A spell asked for in a story whose characters have no magic."""

    key: ClassVar[str] = "adventure.gm.no_magic"


class GmWhichSpellOutside(Message):
    """A spell asked for outside a fight without naming one."""

    key: ClassVar[str] = "adventure.gm.which_spell_outside"


class GmSpellNotOutside(Message):
    """A spell that cannot be cast outside a fight now."""

    key: ClassVar[str] = "adventure.gm.spell_not_outside"
    spell: str


class GmWhoToHeal(Message):
    """【治癒】 asked for with several party members and none named."""

    key: ClassVar[str] = "adventure.gm.who_to_heal"


class GmFleeTooLate(Message):
    """A flight asked for after the round's dice were rolled."""

    key: ClassVar[str] = "adventure.gm.flee_too_late"


class GmWhichEnemy(Message):
    """An attack on one of several enemies named (``names``)."""

    key: ClassVar[str] = "adventure.gm.which_enemy"
    names: str


class GmNotInBattle(Message):
    """An action outside a fight's, asked for in a fight."""

    key: ClassVar[str] = "adventure.gm.not_in_battle"


class GmUnclearInBattle(Message):
    """A line the GM could not read as a move of the fight."""

    key: ClassVar[str] = "adventure.gm.unclear_in_battle"
    line: str


class GmWhichSpellCastable(Message):
    """A spell asked for in a fight without naming one; ``known``: those castable now."""

    key: ClassVar[str] = "adventure.gm.which_spell_castable"
    known: str


class GmWhichSpellNone(Message):
    """A spell asked for in a fight where none can be cast."""

    key: ClassVar[str] = "adventure.gm.which_spell_none"


class GmSpellNotNow(Message):
    """A spell named in a fight that cannot be cast now."""

    key: ClassVar[str] = "adventure.gm.spell_not_now"
    spell: str


class GmSpellHow(Message):
    """A spell of several modes (``modes``) with none named."""

    key: ClassVar[str] = "adventure.gm.spell_how"
    spell: str
    modes: str


class GmSpellHowMuch(Message):
    """A spell that converts an amount of HP, with none named."""

    key: ClassVar[str] = "adventure.gm.spell_how_much"
    spell: str
    low: int
    high: int


class GmSpellOnWhom(Message):
    """A spell with several targets (``targets``) and none named."""

    key: ClassVar[str] = "adventure.gm.spell_on_whom"
    spell: str
    targets: str


class GmBladesClash(Message):
    """The opening of a round's narration."""

    key: ClassVar[str] = "adventure.gm.blades_clash"


class GmFact(Message):
    """One fact of a round's narration (the engine's line, its full stop taken off)."""

    key: ClassVar[str] = "adventure.gm.fact"
    fact: str


class GmDeclarationTaken(Message):
    """A declaration at SETUP taken; the round starts on 『攻撃』."""

    key: ClassVar[str] = "adventure.gm.declaration_taken"


class GmEnemiesStanding(Message):
    """The enemies still standing (``names``), in a fight."""

    key: ClassVar[str] = "adventure.gm.enemies_standing"
    names: str


class GmWhatDoYouDo(Message):
    """The GM's question at the end of a turn."""

    key: ClassVar[str] = "adventure.gm.what_do_you_do"


class GmStoryClosed(Message):
    """The last line of an adventure that reached an ending."""

    key: ClassVar[str] = "adventure.gm.story_closed"


class GmFightWon(Message):
    """A fight won."""

    key: ClassVar[str] = "adventure.gm.fight_won"


class GmFightLost(Message):
    """A fight lost."""

    key: ClassVar[str] = "adventure.gm.fight_lost"


class GmFightFled(Message):
    """A fight fled."""

    key: ClassVar[str] = "adventure.gm.fight_fled"


class GmThenWhat(Message):
    """A closing line (``text``) and the GM's question."""

    key: ClassVar[str] = "adventure.gm.then_what"
    text: str


class GmThenClosed(Message):
    """A closing line (``text``) and the end of the story."""

    key: ClassVar[str] = "adventure.gm.then_closed"
    text: str


# ---------------------------------------------------------------- combat: the logs as shown
# The fast-combat logs of the rules document (§4, §7, §13.2, §14.2) in the player's language.
# Spell names (【火弾】), ranks, weapons and armour are the rules' own terms and stay as they are.


class CombatWordKind(StrEnum):
    """A word of the combat logs that the engine keeps in the rules' Japanese (a state, an
    outcome, an AP term): the choice of text of :class:`CombatWord`."""

    OK = "ok"
    DOWN = "down"
    DEAD = "dead"
    PC_VICTORY = "pc_victory"
    ENEMY_VICTORY = "enemy_victory"
    NARRATIVE_VICTORY = "narrative_victory"
    INTERRUPTED = "interrupted"
    MOB = "mob"
    ELITE = "elite"
    BOSS = "boss"
    NONE = "none"
    ONE_HANDED = "one_handed"
    TWO_HANDED = "two_handed"
    NO_SHIELD = "no_shield"
    SMALL_SHIELD = "small_shield"
    LARGE_SHIELD = "large_shield"
    DICE = "dice"
    EQUIPMENT = "equipment"
    SITUATIONAL = "situational"
    HINDRANCE = "hindrance"
    FIXED_AP = "fixed_ap"
    ABILITY = "ability"
    SWARM = "swarm"
    DIFFICULTY = "difficulty"
    ARMOUR = "armour"
    NO_PARTICIPANT = "no_participant"


class CombatWord(Message):
    """One word of :class:`CombatWordKind` (its text is ``combat.word.<kind>``)."""

    key: ClassVar[str] = "combat.word"
    kind: CombatWordKind

    def text_key(self) -> str:
        """``combat.word.<kind>``."""
        return f"{self.key}.{self.kind.value}"

    def params(self) -> dict[str, str | int]:
        """None: the kind is the choice of text."""
        return {}


class LogBullet(Message):
    """The mark before each line of a log."""

    key: ClassVar[str] = "combat.log.bullet"


class LogNarrateWord(Message):
    """The word the NARRATIVE brief's instructions (not its facts) contain."""

    key: ClassVar[str] = "combat.log.narrate_word"


class LogListSeparator(Message):
    """Between the names of a list in a log."""

    key: ClassVar[str] = "combat.log.separator"


class LogBracketed(Message):
    """A parenthesised addition after a value: ``（…）``."""

    key: ClassVar[str] = "combat.log.bracketed"
    text: str


class LogSetupWait(Message):
    """BATTLE_SETUP's waiting message."""

    key: ClassVar[str] = "combat.log.setup_wait"


class LogRollWait(Message):
    """ROLL_LOG's waiting message."""

    key: ClassVar[str] = "combat.log.roll_wait"


class LogJudgeWait(Message):
    """BATTLE_JUDGE LOG's waiting message."""

    key: ClassVar[str] = "combat.log.judge_wait"


class LogLastingCost(Message):
    """A character's lasting loss of maximum HP (因果の歪み)."""

    key: ClassVar[str] = "combat.log.lasting_cost"
    loss: int


class LogSlotsLeft(Message):
    """The slots left (compact status)."""

    key: ClassVar[str] = "combat.log.slots_left"
    left: int


class LogSlotsLine(Message):
    """The status block's slots line."""

    key: ClassVar[str] = "combat.log.slots_line"
    slots: str


class LogStateLine(Message):
    """The status block's state line."""

    key: ClassVar[str] = "combat.log.state_line"
    condition: str


class LogName(Message):
    """A character's name as a heading."""

    key: ClassVar[str] = "combat.log.name"
    name: str


class LogSessionStatus(Message):
    """The heading of the footer of every GM turn (§5.2)."""

    key: ClassVar[str] = "combat.log.session_status"


class LogSessionLine(Message):
    """One character's line of the footer."""

    key: ClassVar[str] = "combat.log.session_line"
    name: str
    hp: int
    max_hp: int
    left: int
    slots: int
    condition: str


class LogLevel(Message):
    """A rank's §5.1 level letter."""

    key: ClassVar[str] = "combat.log.level"
    letter: str


class LogMasterData(Message):
    """The character master data (§14.2)."""

    key: ClassVar[str] = "combat.log.master_data"
    name: str
    rank: str
    level: str
    max_hp: int
    hp: int
    ap_dice: int
    equipment: str
    weapon: str
    weapon_ap: str
    hands: str
    armour: str
    reduction: int
    shield: str
    left: int
    slots: int
    spells: str
    status: str
    notes: str


class LogEnemyLine(Message):
    """One enemy's line (``extra``: abilities and whether it is down)."""

    key: ClassVar[str] = "combat.log.enemy_line"
    name: str
    kind: str
    ap: str
    hp: int
    max_hp: int
    extra: str


class LogDefeated(Message):
    """After a defeated enemy."""

    key: ClassVar[str] = "combat.log.defeated"


class LogSetupHeading(Message):
    """BATTLE_SETUP's heading."""

    key: ClassVar[str] = "combat.log.setup_heading"
    round: int


class LogPcBaseAp(Message):
    """The PC side's AP formula."""

    key: ClassVar[str] = "combat.log.pc_base_ap"
    dice: int
    members: str
    equipment: str
    extra: str


class LogEnemyBaseAp(Message):
    """The enemy side's AP formula."""

    key: ClassVar[str] = "combat.log.enemy_base_ap"
    fixed: int
    dice: str
    modifier: str
    modifiers: str


class LogSituational(Message):
    """A situational bonus in the PC side's formula."""

    key: ClassVar[str] = "combat.log.situational"
    value: str


class LogHindrance(Message):
    """The enemies' hindrance in the PC side's formula."""

    key: ClassVar[str] = "combat.log.hindrance"
    value: str


class LogCollapsePending(Message):
    """A 【崩壊】 being cast, and the round it lands."""

    key: ClassVar[str] = "combat.log.collapse_pending"
    caster: str
    round: int


class LogSpells(Message):
    """The heading of the spells declared."""

    key: ClassVar[str] = "combat.log.spells"


class LogHalveDamage(Message):
    """【治癒の波動】 halving the damage."""

    key: ClassVar[str] = "combat.log.halve_damage"


class LogEndure(Message):
    """【治癒の波動】 keeping ``target`` at HP 1."""

    key: ClassVar[str] = "combat.log.endure"
    target: str


class LogOvercast(Message):
    """A spell cast beyond the slots (因果の歪み)."""

    key: ClassVar[str] = "combat.log.overcast"


class LogPcTarget(Message):
    """The PCs' target."""

    key: ClassVar[str] = "combat.log.pc_target"
    name: str


class LogEnemyTarget(Message):
    """The enemies' target."""

    key: ClassVar[str] = "combat.log.enemy_target"
    name: str


class LogRollHeading(Message):
    """ROLL_LOG's heading."""

    key: ClassVar[str] = "combat.log.roll_heading"
    round: int


class LogDiscarded(Message):
    """The dice 【予見】 discarded at the roll."""

    key: ClassVar[str] = "combat.log.discarded"
    times: int
    values: str


class LogSpellsAfterRoll(Message):
    """The heading of the spells cast after the roll."""

    key: ClassVar[str] = "combat.log.spells_after_roll"


class LogHalve(Message):
    """A halving mode after a spell."""

    key: ClassVar[str] = "combat.log.halve"


class LogJudgeHeading(Message):
    """BATTLE_JUDGE LOG's heading."""

    key: ClassVar[str] = "combat.log.judge_heading"
    round: int


class LogNotJudged(Message):
    """A judge log before the judge."""

    key: ClassVar[str] = "combat.log.not_judged"


class LogPcFinalAp(Message):
    """The PC side's final AP."""

    key: ClassVar[str] = "combat.log.pc_final_ap"
    terms: str


class LogEnemyFinalAp(Message):
    """The enemy side's final AP."""

    key: ClassVar[str] = "combat.log.enemy_final_ap"
    terms: str


class LogVerdictTie(Message):
    """A tie at the judge."""

    key: ClassVar[str] = "combat.log.verdict_tie"


class LogDifference(Message):
    """The difference and who won it."""

    key: ClassVar[str] = "combat.log.difference"
    difference: int
    verdict: str


class LogHeal(Message):
    """A heal at the judge."""

    key: ClassVar[str] = "combat.log.heal"
    spell: str
    caster: str
    target: str
    rolled: str
    healed: int
    before: int
    after: int


class LogDamage(Message):
    """A damage line at the judge."""

    key: ClassVar[str] = "combat.log.damage"
    target: str
    difference: int
    steps: str
    damage: int
    before: int
    after: int


class LogEndured(Message):
    """A character kept at HP 1 (no death check)."""

    key: ClassVar[str] = "combat.log.endured"
    character: str
    by: str


class LogCheckAuto(Message):
    """A death check passed by a spell."""

    key: ClassVar[str] = "combat.log.check_auto"
    character: str
    by: str


class LogCheck(Message):
    """A death check rolled."""

    key: ClassVar[str] = "combat.log.check"
    character: str
    rolled: str
    total: int
    target: int
    verdict: str


class LogCheckDown(Message):
    """A death check passed: down."""

    key: ClassVar[str] = "combat.log.check_down"


class LogCheckDead(Message):
    """A death check failed: dead."""

    key: ClassVar[str] = "combat.log.check_dead"


class LogDiscardedAtJudge(Message):
    """The dice 【予見】 discarded at the judge."""

    key: ClassVar[str] = "combat.log.discarded_at_judge"
    values: str


class LogStandings(Message):
    """The heading of everyone's HP."""

    key: ClassVar[str] = "combat.log.standings"


class LogOutcome(Message):
    """How the fight was decided."""

    key: ClassVar[str] = "combat.log.outcome"
    outcome: str


class LogNarrativeHeading(Message):
    """[MODE: NARRATIVE]'s heading."""

    key: ClassVar[str] = "combat.log.narrative_heading"
    round: int


class LogFactTie(Message):
    """A tie, as a fact to narrate."""

    key: ClassVar[str] = "combat.log.fact_tie"


class LogFactHeal(Message):
    """A heal, as a fact to narrate."""

    key: ClassVar[str] = "combat.log.fact_heal"
    caster: str
    spell: str
    target: str
    healed: int


class LogFactDamage(Message):
    """Damage, as a fact to narrate (``fell``: the mark of one who fell)."""

    key: ClassVar[str] = "combat.log.fact_damage"
    target: str
    damage: int
    before: int
    after: int
    fell: str


class LogFell(Message):
    """After the damage of one who fell."""

    key: ClassVar[str] = "combat.log.fell"


class LogFactFate(Message):
    """A death check's outcome, as a fact (``fate``: one of the three below)."""

    key: ClassVar[str] = "combat.log.fact_fate"
    character: str
    fate: Message


class LogFateDown(Message):
    """Survived, down."""

    key: ClassVar[str] = "combat.log.fate_down"


class LogFateDead(Message):
    """Died."""

    key: ClassVar[str] = "combat.log.fate_dead"


class LogFateEndured(Message):
    """Kept at HP 1."""

    key: ClassVar[str] = "combat.log.fate_endured"


class LogFactCast(Message):
    """A spell cast, as a fact."""

    key: ClassVar[str] = "combat.log.fact_cast"
    caster: str
    spell: str


class LogFactDecided(Message):
    """The fight is decided: narrate, then it ends."""

    key: ClassVar[str] = "combat.log.fact_decided"
    outcome: str


class LogFactGoesOn(Message):
    """The enemies still stand: narrate, then the next round."""

    key: ClassVar[str] = "combat.log.fact_goes_on"


class LogEndHeading(Message):
    """The end of a battle's heading."""

    key: ClassVar[str] = "combat.log.end_heading"
    outcome: str


class LogNarrativeResolution(Message):
    """A fight decided without dice (【ナラティブ優先の原則】)."""

    key: ClassVar[str] = "combat.log.narrative_resolution"
    pc: str
    enemy: str
    reason: str


class LogRounds(Message):
    """How many rounds a fight lasted."""

    key: ClassVar[str] = "combat.log.rounds"
    rounds: int


class LogFallen(Message):
    """Who died in the fight."""

    key: ClassVar[str] = "combat.log.fallen"
    names: str


class LogInBattle(Message):
    """The compact status in a fight: its round and pause."""

    key: ClassVar[str] = "combat.log.in_battle"
    round: int
    phase: str


class LogFleeRoll(Message):
    """The 3d6 flight check."""

    key: ClassVar[str] = "combat.log.flee_roll"
    result: str


class LogFleeSuccess(Message):
    """A flight that succeeded."""

    key: ClassVar[str] = "combat.log.flee_success"


class LogFleeFailure(Message):
    """A flight that failed."""

    key: ClassVar[str] = "combat.log.flee_failure"


class LogRested(Message):
    """A day's rest."""

    key: ClassVar[str] = "combat.log.rested"


# ---------------------------------------------------------------- adventure: the free-form offline GM
# The short scripted adventure the offline backend plays without a scenario (``--scenario none``).


class FreeWelcome(Message):
    """The greeting, asking for the character."""

    key: ClassVar[str] = "adventure.free.welcome"


class FreeSwapSpells(Message):
    """The hero changes the spells known."""

    key: ClassVar[str] = "adventure.free.swap_spells"
    hero: str


class FreeSetsOut(Message):
    """The hero sets out; a check follows."""

    key: ClassVar[str] = "adventure.free.sets_out"
    hero: str


class FreeCheckReason(Message):
    """What the check is for."""

    key: ClassVar[str] = "adventure.free.check_reason"


class FreeSpotted(Message):
    """The check succeeded: the foe is seen first."""

    key: ClassVar[str] = "adventure.free.spotted"


class FreeSurprised(Message):
    """The check failed: the foe is upon the hero."""

    key: ClassVar[str] = "adventure.free.surprised"


class FreeCharges(Message):
    """The fight begins."""

    key: ClassVar[str] = "adventure.free.charges"


class FreeBoss(Message):
    """The foe's name."""

    key: ClassVar[str] = "adventure.free.boss"


class FreeFireball(Message):
    """The hero casts 【火弾】."""

    key: ClassVar[str] = "adventure.free.fireball"
    hero: str


class FreeClash(Message):
    """The round is rolled."""

    key: ClassVar[str] = "adventure.free.clash"


class FreeBladesAndFire(Message):
    """The opening of a round's narration."""

    key: ClassVar[str] = "adventure.free.blades_and_fire"


class FreeRests(Message):
    """The hero rests after the fight."""

    key: ClassVar[str] = "adventure.free.rests"
    hero: str


class FreeWon(Message):
    """The closing narration of a won fight."""

    key: ClassVar[str] = "adventure.free.won"
    hero: str


class FreeWonSummary(Message):
    """The summary of a won adventure (``outcome``: how the fight ended)."""

    key: ClassVar[str] = "adventure.free.won_summary"
    hero: str
    outcome: str


class FreeLost(Message):
    """The closing narration of a lost fight."""

    key: ClassVar[str] = "adventure.free.lost"
    hero: str


class FreeLostSummary(Message):
    """The summary of a lost adventure."""

    key: ClassVar[str] = "adventure.free.lost_summary"
    hero: str
    outcome: str


class LogArmourOf(Message):
    """A damage step: the armour ``name`` reduces it."""

    key: ClassVar[str] = "combat.log.armour_of"
    name: str


class LogHalvedBy(Message):
    """A damage step: ``spell`` halves it."""

    key: ClassVar[str] = "combat.log.halved_by"
    spell: str


# ---------------------------------------------------------------- werewolf: the session's options
# Refusals of ``gm werewolf play``'s options that the options' own checks make (English under
# GM_LOCALE=en; the Japanese screen keeps the rules' own wording of them).


class HumanNameUnusable(Message):
    """``--name`` blank, with parentheses, or a persona's name."""

    key: ClassVar[str] = "werewolf.option.name_unusable"
    name: str


class DealNotComposition(Message):
    """``--deal`` that is not the rules' nine roles."""

    key: ClassVar[str] = "werewolf.option.deal_not_composition"
    deal: str


class RoleDealMismatch(Message):
    """``--role`` and ``--deal`` disagree about P1."""

    key: ClassVar[str] = "werewolf.option.role_deal_mismatch"
    role: int
    first: int


# ---------------------------------------------------------------- combat: the engine's own lines
# The lines the combat engine writes into a battle's state and a step's events (a spell
# declared, a slot spent, a regeneration at SETUP, a note of the judge). The engine writes
# them in Japanese (a state's JSON and hash never depend on the player's locale);
# gm_engine.combat.lines reads them back to show them in another one.


class EngineSituational(Message):
    """A situational bonus declared (``bonus`` signed)."""

    key: ClassVar[str] = "combat.engine.situational"
    character: str
    bonus: str


# ---------------------------------------------------------------- serve_page: gm serve's pages
# Every word the lobby and a table's page show (gm_engine.serve.page_text hands them to the
# pages, in the table's locale), the panel's and the buttons' words, and the end messages of a
# web table. Texts with ``{placeholders}`` the page fills in itself are rendered with each
# field set to its own ``{name}`` (see ``gm_engine.serve.page_text``).


class PageWord(StrEnum):
    """A word or sentence of gm serve's pages without parameters (texts:
    ``serve_page.word.<value>``)."""

    LOBBY_TITLE = "lobby_title"
    LOBBY_SUB = "lobby_sub"
    OPEN_TABLES = "open_tables"
    OPEN_TABLES_HINT = "open_tables_hint"
    NO_TABLES = "no_tables"
    FINISHED_TABLES = "finished_tables"
    NO_FINISHED = "no_finished"
    OPEN_A_TABLE = "open_a_table"
    GAME = "game"
    KIND_WEREWOLF = "kind_werewolf"
    KIND_ADVENTURE = "kind_adventure"
    TABLE_NAME = "table_name"
    TITLE_WEREWOLF = "title_werewolf"
    TITLE_ADVENTURE = "title_adventure"
    LANGUAGE = "language"
    WEREWOLF_SETTINGS = "werewolf_settings"
    YOUR_ROLE = "your_role"
    ROLE_AT_TABLE = "role_at_table"
    YOUR_NAME = "your_name"
    DEFAULT_NAME = "default_name"
    DISCUSSION_ROUNDS = "discussion_rounds"
    MADMAN_CLAIMS = "madman_claims"
    MADMAN_LIKE_WEREWOLF = "madman_like_werewolf"
    MADMAN_NONE = "madman_none"
    ATTACK_FIRST_NIGHT = "attack_first_night"
    NARRATOR = "narrator"
    AIWOLF_LEGEND = "aiwolf_legend"
    AIWOLF_HINT = "aiwolf_hint"
    ADVENTURE_SETTINGS = "adventure_settings"
    SCENARIO = "scenario"
    SCENARIO_GOBLIN_SHRINE = "scenario_goblin_shrine"
    SCENARIO_MANOR_DIARY = "scenario_manor_diary"
    SCENARIO_GREY_PASS = "scenario_grey_pass"
    MODEL = "model"
    BACKEND_OFFLINE = "backend_offline"
    BACKEND_OPENAI = "backend_openai"
    SERVER = "server"
    MODEL_NAME = "model_name"
    API_KEY = "api_key"
    CREATED = "created"
    TAKE_SEAT = "take_seat"
    KIND_WEREWOLF_PREFIX = "kind_werewolf_prefix"
    KIND_ADVENTURE_PREFIX = "kind_adventure_prefix"
    YOUR_SEAT = "your_seat"
    YOUR_SEAT_FINISHED = "your_seat_finished"
    CANNOT_OPEN = "cannot_open"
    TABLE_TITLE = "table_title"
    LOBBY_LINK = "lobby_link"
    TABLE = "table"
    PANEL_LABEL = "panel_label"
    LOG_LABEL = "log_label"
    TEXT_PLACEHOLDER = "text_placeholder"
    SEND = "send"
    AIWOLF_ADDRESSES = "aiwolf_addresses"
    AIWOLF_SEAT_HINT = "aiwolf_seat_hint"
    AIWOLF_CONNECTED = "aiwolf_connected"
    AIWOLF_WAITING = "aiwolf_waiting"
    DOWNLOAD = "download"
    YOU_MARK = "you_mark"
    ALIVE = "alive"
    GONE = "gone"
    NO_CHARACTER = "no_character"
    NAME = "name"
    AP_DICE = "ap_dice"
    SLOTS = "slots"
    STATE = "state"
    NOTE_OPEN = "note_open"
    STATUS_STARTING = "status_starting"
    STATUS_RUNNING = "status_running"
    STATUS_FINISHED = "status_finished"
    STATUS_FAILED = "status_failed"
    STATUS_STOPPED = "status_stopped"
    STATUS_ERROR = "status_error"
    SEND_FAILED = "send_failed"
    NOT_THIS_SEAT = "not_this_seat"
    UNREACHABLE = "unreachable"
    RECONNECTING = "reconnecting"
    TRANSCRIPT_NOT_YET = "transcript_not_yet"
    OPEN_FROM_LINK = "open_from_link"
    DAYTIME = "daytime"
    NIGHTTIME = "nighttime"
    BATTLE_SETUP = "battle_setup"
    BATTLE_ROLL = "battle_roll"
    BATTLE_JUDGE = "battle_judge"
    BATTLE_NARRATIVE = "battle_narrative"
    BATTLE_ENDED = "battle_ended"
    YES = "yes"
    NO = "no"
    VOTE_WITHOUT_REASON = "vote_without_reason"
    DECLINE = "decline"
    PASS = "pass"
    STOPPED_BY_SERVER = "stopped_by_server"
    TAKEN_OVER = "taken_over"


class PageText(Message):
    """A word of gm serve's pages: its text is ``serve_page.word.<word>``."""

    key: ClassVar[str] = "serve_page.word"
    word: PageWord

    def text_key(self) -> str:
        """``serve_page.word.<word>``."""
        return f"{self.key}.{self.word.value}"

    def params(self) -> dict[str, str | int]:
        """None: the word is the choice of text."""
        return {}


class PageNoModelServers(Message):
    """The lobby's note that no model server is allowed (``command``: the option, as code)."""

    key: ClassVar[str] = "serve_page.no_model_servers"
    command: str


class PageDayTime(Message):
    """The werewolf panel's heading: the day and the time of day."""

    key: ClassVar[str] = "serve_page.day_time"
    day: str
    time: str


class PageYourRole(Message):
    """The werewolf panel: P1's own role."""

    key: ClassVar[str] = "serve_page.your_role"
    role: str


class PagePartners(Message):
    """The werewolf panel: a 人狼's partners (``names`` joined)."""

    key: ClassVar[str] = "serve_page.partners"
    names: str


class PageCoBadge(Message):
    """A seat's latest claim on its card (and the plain claim button)."""

    key: ClassVar[str] = "serve_page.co_badge"
    role: str


class PageNameWith(Message):
    """A character's name with its rank or occupation."""

    key: ClassVar[str] = "serve_page.name_with"
    name: str
    what: str


class PageSkills(Message):
    """An investigator's skills on the panel (``skills``: joined by the locale's separator)."""

    key: ClassVar[str] = "serve_page.skills"
    skills: str


class PageInBattle(Message):
    """The adventure panel's battle line (``battle``: round and pause)."""

    key: ClassVar[str] = "serve_page.in_battle"
    battle: str


class PageBattle(Message):
    """A battle's round and pause, as the panel shows them."""

    key: ClassVar[str] = "serve_page.battle"
    round: int
    phase: str


class PageFold(Message):
    """The line under which the claims with a result of one role are folded."""

    key: ClassVar[str] = "serve_page.fold"
    head: str


class PageAIWolfAddress(Message):
    """The label of an AIWolf agent seat's address."""

    key: ClassVar[str] = "serve_page.aiwolf_address"
    seat: str


class PageClaimWithResult(Message):
    """A claim button with a stated result (``target``: the seat and its name)."""

    key: ClassVar[str] = "serve_page.claim_with_result"
    role: str
    target: str
    colour: str


class PageResult(Message):
    """A button that states a result (``target``: the seat and its name)."""

    key: ClassVar[str] = "serve_page.result"
    target: str
    colour: str


class PageRequest(Message):
    """A CO要求 button."""

    key: ClassVar[str] = "serve_page.request"
    role: str


class PageCannotGoOn(Message):
    """A web table whose lines no longer replay (``cause``: why)."""

    key: ClassVar[str] = "serve_page.cannot_go_on"
    cause: str


class PageServerFinal(Message):
    """A web table stopped for good by its model server (``trouble``: what it was)."""

    key: ClassVar[str] = "serve_page.server_final"
    trouble: str


class PageServerLater(Message):
    """A web table paused by its model server, resumed ``seconds`` later."""

    key: ClassVar[str] = "serve_page.server_later"
    trouble: str
    seconds: str


class PageStoppedError(Message):
    """A web table paused by a failure of the store or the program (``reason``: its kind)."""

    key: ClassVar[str] = "serve_page.stopped_error"
    reason: str
    seconds: str


class PageUnreplayable(Message):
    """A finished table whose lines no longer replay here (``cause``: the first problem)."""

    key: ClassVar[str] = "serve_page.unreplayable"
    cause: str


class PageSkillPair(Message):
    """Two items of the panel's skill list side by side (a longer list is paired on)."""

    key: ClassVar[str] = "serve_page.skill_pair"
    first: str
    second: str


class PageAgentSeats(Message):
    """A table's AIWolf agent seats that are not P2..P9, each once (``seats``: as given)."""

    key: ClassVar[str] = "serve_page.agent_seats"
    seats: str


class ServeHolderUnreachable(Message):
    """The process driving a table cannot be reached from the one a request came to."""

    key: ClassVar[str] = "serve_page.holder_unreachable"


class ServeNoPageWords(Message):
    """``GET /api/strings/{locale}`` of a language the pages do not speak."""

    key: ClassVar[str] = "serve_page.no_page_words"
    locale: str
    known: str


class EngineTarget(Message):
    """The PCs' target declared."""

    key: ClassVar[str] = "combat.engine.target"
    enemy: str


class EngineEnemyTarget(Message):
    """The enemies' target declared."""

    key: ClassVar[str] = "combat.engine.enemy_target"
    character: str


class EngineRolled(Message):
    """Both sides' AP dice were rolled."""

    key: ClassVar[str] = "combat.engine.rolled"


class EngineJudged(Message):
    """The judgement is done."""

    key: ClassVar[str] = "combat.engine.judged"


class EngineRoundBegins(Message):
    """A new round begins."""

    key: ClassVar[str] = "combat.engine.round_begins"
    round: int


class EngineBattleEnded(Message):
    """The battle ended (``outcome`` the engine's word for it, or empty)."""

    key: ClassVar[str] = "combat.engine.battle_ended"
    outcome: str


class EngineFightRequested(Message):
    """The player asked for the fight to be played out with dice."""

    key: ClassVar[str] = "combat.engine.fight_requested"


class EngineNarrativeResolved(Message):
    """The fight was settled by 【ナラティブ優先の原則】."""

    key: ClassVar[str] = "combat.engine.narrative_resolved"


class EngineRegeneration(Message):
    """An enemy's 再生 at the start of a round."""

    key: ClassVar[str] = "combat.engine.regeneration"
    enemy: str
    amount: int
    before: int
    after: int


class EngineSlotSpent(Message):
    """A spell slot spent on a cast."""

    key: ClassVar[str] = "combat.engine.slot_spent"
    caster: str
    before: int
    after: int


class EngineOvercast(Message):
    """A cast with no slot left: the lasting cost paid from the maximum HP."""

    key: ClassVar[str] = "combat.engine.overcast"
    caster: str
    cost: int
    before: int
    after: int


class EngineLimitBreak(Message):
    """【限界突破】: ``amount`` HP paid for as much AP."""

    key: ClassVar[str] = "combat.engine.limit_break"
    caster: str
    amount: int
    hp: int


class EngineCast(Message):
    """A spell cast (no target)."""

    key: ClassVar[str] = "combat.engine.cast"
    caster: str
    spell: str


class EngineCastAt(Message):
    """A spell cast on ``target``."""

    key: ClassVar[str] = "combat.engine.cast_at"
    caster: str
    spell: str
    target: str


class EngineSanctuaryDropsBonus(Message):
    """【聖域】's caster loses the situational bonus declared for them."""

    key: ClassVar[str] = "combat.engine.sanctuary_drops_bonus"
    caster: str


class EngineCollapseChannelled(Message):
    """【崩壊】 is being channelled; it goes off in ``round``."""

    key: ClassVar[str] = "combat.engine.collapse_channelled"
    round: int


class EngineForesightRerolled(Message):
    """【予見】 at ROLL: the dice were discarded and rolled again."""

    key: ClassVar[str] = "combat.engine.foresight_rerolled"


class EngineReviveOverturns(Message):
    """【蘇生】 on a character who died at this JUDGE: the check counts as passed."""

    key: ClassVar[str] = "combat.engine.revive_overturns"
    target: str


class EngineReviveOverturned(Message):
    """The judge's note of a death that 【蘇生】 overturned."""

    key: ClassVar[str] = "combat.engine.revive_overturned"
    caster: str
    target: str


class EngineReviveWard(Message):
    """【蘇生】 ahead of time: the target's next life-or-death check passes."""

    key: ClassVar[str] = "combat.engine.revive_ward"
    target: str


class EngineCheckRerollSurvived(Message):
    """【予見】 at JUDGE: the life-or-death check rolled again, and passed."""

    key: ClassVar[str] = "combat.engine.check_reroll_survived"
    owner: str
    old: str
    new: str
    total: int


class EngineCheckRerollDied(Message):
    """【予見】 at JUDGE: the life-or-death check rolled again, and failed."""

    key: ClassVar[str] = "combat.engine.check_reroll_died"
    owner: str
    old: str
    new: str
    total: int


class EngineCollapseFizzled(Message):
    """A 【崩壊】 whose caster fell before it went off."""

    key: ClassVar[str] = "combat.engine.collapse_fizzled"
    caster: str


class EngineHealOnDead(Message):
    """A 【治癒】 on a target who is dead does nothing."""

    key: ClassVar[str] = "combat.engine.heal_on_dead"
    caster: str
    target: str


class EngineLastingCost(Message):
    """A character's 特記事項 of a lasting cost (``spell`` the spell's label)."""

    key: ClassVar[str] = "combat.engine.lasting_cost"
    spell: str
    loss: int


class EngineAbilityAp(Message):
    """An enemy's 攻撃補正 (``amount`` signed)."""

    key: ClassVar[str] = "combat.engine.ability_ap"
    amount: str


class EngineAbilityArmour(Message):
    """An enemy's 防御補正 (``amount`` signed)."""

    key: ClassVar[str] = "combat.engine.ability_armour"
    amount: str


class EngineAbilityHinder(Message):
    """An enemy's 状態干渉 (the PC side's AP lowered by ``amount``)."""

    key: ClassVar[str] = "combat.engine.ability_hinder"
    amount: int


class EngineAbilityRegeneration(Message):
    """An enemy's 再生."""

    key: ClassVar[str] = "combat.engine.ability_regeneration"
    amount: int


class EngineDiceLifeCheck(Message):
    """What a die group of a life-or-death check is for."""

    key: ClassVar[str] = "combat.engine.dice_life_check"


class EngineDiceHeal(Message):
    """What a die group of 【治癒】 on ``target`` is for."""

    key: ClassVar[str] = "combat.engine.dice_heal"
    target: str


class CombatDemoParty(Message):
    """``gm combat demo``'s heading of the party."""

    key: ClassVar[str] = "combat_demo_screen.party"


class CombatDemoEnemies(Message):
    """``gm combat demo``'s heading of the enemies."""

    key: ClassVar[str] = "combat_demo_screen.enemies"


class CombatDemoHighGround(Message):
    """The reason of the demo fighter's situational bonus."""

    key: ClassVar[str] = "combat_demo_screen.high_ground"


class FreeNameless(Message):
    """The free-form adventure's name for a character the player gave none."""

    key: ClassVar[str] = "adventure.free_default.name"

# ---------------------------------------------------------------- werewolf: the seat's words
# What P1's seat says when a line it read cannot go through as typed (issue 11): a claim
# without its result, an answer to a CO要求 that is none, a command the question does not
# take, an unsure reading the rules refuse, the answer that is the day's last say.


class TargetConflictSeats(Message):
    """A P-number and a name of different seats (「シセン(P4)」): which seat each one is."""

    key: ClassVar[str] = "werewolf.seat_words.target_conflict"
    text: str
    p_number: str
    p_name: str
    name: str
    name_p: str


class ClaimWithoutResult(Message):
    """A claim that must carry its result typed without one, with an example of the form."""

    key: ClassVar[str] = "werewolf.seat_words.claim_without_result"
    role: str
    words: str
    command: str


class AnswerNotRead(Message):
    """A line at a CO要求's answer that answers nothing (``forms``: the answers it may give)."""

    key: ClassVar[str] = "werewolf.seat_words.answer_not_read"
    forms: str


class CommandNotHere(Message):
    """A slash command the question does not take (``here``: what the question takes)."""

    key: ClassVar[str] = "werewolf.seat_words.command_not_here"
    command: str
    here: str


class AnswerFormDecline(Message):
    """The answer that does not come out, in words and as the command."""

    key: ClassVar[str] = "werewolf.seat_words.form_decline"


class AnswerFormClaim(Message):
    """The answer that comes out, by the example of one legal claim."""

    key: ClassVar[str] = "werewolf.seat_words.form_claim"
    words: str
    command: str


class AnswerFormResult(Message):
    """The answer of a seat re-asked for its result, by the example of one legal result."""

    key: ClassVar[str] = "werewolf.seat_words.form_result"
    words: str
    command: str


class HereTarget(Message):
    """What a choice of seat takes."""

    key: ClassVar[str] = "werewolf.seat_words.here_target"


class HereRole(Message):
    """What the role question takes."""

    key: ClassVar[str] = "werewolf.seat_words.here_role"


class HereConfirm(Message):
    """What a confirmation takes."""

    key: ClassVar[str] = "werewolf.seat_words.here_confirm"


class HereReason(Message):
    """What the vote's reason takes."""

    key: ClassVar[str] = "werewolf.seat_words.here_reason"


class HereCommands(Message):
    """What every question takes besides its answer (``commands``: /log, /votes, …)."""

    key: ClassVar[str] = "werewolf.seat_words.here_commands"
    answer: str
    commands: str


class AnswerHelp(Message):
    """``/help`` at a CO要求's answer: the answers it takes, the discussion commands it does
    not take, and the commands of every question."""

    key: ClassVar[str] = "werewolf.seat_words.answer_help"
    role: str
    answers: str
    unavailable: str
    commands: str


class AnswerPromptLastSay(Message):
    """The answer to a CO要求 that is P1's last discussion turn of the day."""

    key: ClassVar[str] = "werewolf.seat_words.answer_prompt_last_say"
    role: str
    commands: str


class AnswerPromptTakesTurn(Message):
    """The answer to a CO要求 that takes P1's next discussion turn (more are left today)."""

    key: ClassVar[str] = "werewolf.seat_words.answer_prompt_takes_turn"
    role: str
    commands: str


class ConfirmAsSpeech(Message):
    """An unsure reading the rules refuse: say the line as plain talk? (``reason``: why not)."""

    key: ClassVar[str] = "werewolf.seat_words.confirm_as_speech"
    reading: str
    reason: str


class ConfirmAmbiguous(Message):
    """A line that reads as more than one action: say it as plain talk?"""

    key: ClassVar[str] = "werewolf.seat_words.confirm_ambiguous"


class ConfirmSpeechHelp(Message):
    """``/help`` at :class:`ConfirmAsSpeech` or :class:`ConfirmAmbiguous`."""

    key: ClassVar[str] = "werewolf.seat_words.confirm_speech_help"
    commands: str

# ---------------------------------------------------------------- werewolf: the narrator's events
# What the engine tells the GM narrator happened (the prompt's 【出来事】 line, and the offline
# narrator's cue to open the game), in the session's locale.


class NarratorGameStarts(Message):
    """The game starts: the roles are dealt."""

    key: ClassVar[str] = "werewolf.narrator_event.game_starts"


class NarratorMorning(Message):
    """The morning of ``day`` has come."""

    key: ClassVar[str] = "werewolf.narrator_event.morning"
    day: int


# ---------------------------------------------------------------- roll session: the prompt


class RollPrompt(Message):
    """``gm roll-session``'s prompt: the current game system."""

    key: ClassVar[str] = "roll_session.prompt"
    system: str
