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
    """A roll session's summary."""

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
    """The adventure's /help."""

    key: ClassVar[str] = "adventure.help"


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


class NoReason(Message):
    """A vote given without a reason."""

    key: ClassVar[str] = "werewolf.no_reason"


class DiscussionHelp(Message):
    """/help at the discussion: plain words and every command."""

    key: ClassVar[str] = "werewolf.discussion_help"


class ChoiceHelp(Message):
    """/help at a vote, night or 事前占い question."""

    key: ClassVar[str] = "werewolf.choice_help"


class RoleHelp(Message):
    """``/help`` at the role question (``menu``: the roles by number)."""

    key: ClassVar[str] = "werewolf.help.role"
    menu: str


class ReasonHelp(Message):
    """``/help`` at the vote-reason question."""

    key: ClassVar[str] = "werewolf.help.reason"


class ConfirmHelp(Message):
    """``/help`` at the confirmation of an unsure reading."""

    key: ClassVar[str] = "werewolf.help.confirm"


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
    first: str


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
    problem: str


class DivergenceAtEnd(Message):
    """A replay that differs at its end (or where no recorded event is at hand)."""

    key: ClassVar[str] = "replay.divergence_at_end"
    problem: str


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
