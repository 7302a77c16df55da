"""The human's seat (P1): every question the werewolf session asks the player, read the way
players write at the table.

The same rules hold at every prompt (the role choice, the 事前占い, the discussion and a
CO要求's answer, votes and their reason, the night, the 決選投票, and the one-line
confirmation of an unsure reading):

* ``/quit`` (``/exit``, ``/end``) stops the session (:class:`HumanQuit`), never recorded;
* ``/help`` lists what may be typed there, ``/log`` re-shows the public record so far and
  ``/votes`` the vote history by day, both from P1's own view; an empty line asks again
  (passing is ``/pass``). They change nothing in the game, but are recorded like every
  line typed (only the quit is not, so that resuming asks that question again);
* a choice of seat is read by :func:`~gm_engine.werewolf.phrases.read_target` (name, reading,
  seat number, P-number, 「P7 シセン」), and a miss lists the accepted forms;
* a discussion line in words is read by :func:`~gm_engine.werewolf.phrases.read_line`; a sure
  reading is the action, an unsure one that the rules would allow is named back to the player
  in one line (はい / いいえ) before it becomes one; one they refuse, or a line that reads as two
  actions, is said as speech only after P1 was told why and said yes;
* each question names what it takes: a slash command it does not take, a CO要求 answer that
  answers nothing, a claim without its result are each told the accepted forms;
* every message comes from the catalogue (:mod:`gm_engine.messages`) in the table's locale;
  a refusal says which rule, never the engine's own English.

Everything recorded is what the player typed, so a replay asks the same questions and gets
the same answers.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence

from gm_engine.dice.result import Locale
from gm_engine.messages import Message, render
from gm_engine.messages.texts import (
    AnswerFormClaim,
    AnswerFormDecline,
    AnswerFormResult,
    AnswerHelp,
    AnswerNotRead,
    AnswerPrompt,
    AnswerPromptLastSay,
    AnswerPromptTakesTurn,
    CannotDo,
    ChoiceHelp,
    ChooseRolePrompt,
    ClaimWithoutResult,
    CommandNotHere,
    ConfirmAgain,
    ConfirmAmbiguous,
    ConfirmAsSpeech,
    ConfirmHelp,
    ConfirmSpeechHelp,
    DiscussionHelp,
    DiscussionPrompt,
    EmptyLine,
    EmptyReason,
    EmptyRole,
    HereCommands,
    HereConfirm,
    HereReason,
    HereRole,
    HereTarget,
    ListSeparator,
    LogEmpty,
    LogTitle,
    NotARole,
    ReasonHelp,
    RoleHelp,
    TargetPrompt,
    VoteReasonPrompt,
    VotesDay,
    VotesNone,
)
from gm_engine.sessions.base import HumanInput
from gm_engine.sessions.werewolf.commands import (
    DISCUSSION_COLUMN,
    QUESTION_COLUMN,
    QUIT_WORDS,
    CommandError,
    claim_command,
    help_commands,
    parse_discussion,
)
from gm_engine.sessions.werewolf.wording import confirm_reading, reading_message, render_refusal, target_hint
from gm_engine.tools.werewolf import seat_label
from gm_engine.werewolf import (
    Action,
    Attack,
    ChooseRole,
    Claim,
    Decline,
    Divine,
    Game,
    Guard,
    IllegalActionError,
    RequestClaim,
    Role,
    Speak,
    StateResult,
    Vote,
    observe,
    player_view,
)
from gm_engine.werewolf.game import RULE_CO_RESULT
from gm_engine.werewolf.log import VoteTally
from gm_engine.werewolf.phrases import (
    ROLE_WORDS,
    Speech,
    Table,
    TargetFound,
    TargetMiss,
    fold,
    meaning_action,
    read_line,
    read_target,
)
from gm_engine.werewolf.records import HUMAN_SEAT
from gm_engine.werewolf.render import render_entries, vote_result_lines

#: What a player types to see the commands of the prompt.
HELP_WORDS = frozenset({"/help", "?", "？", "/?", "/ヘルプ", "ヘルプ"})
#: A yes to a confirmation, and a no (folded: NFKC, hiragana, no spaces).
YES_WORDS = frozenset(
    fold(w) for w in ("はい", "うん", "ええ", "y", "yes", "ok", "そう", "そうです", "お願い", "お願いします")
)
NO_WORDS = frozenset(
    fold(w) for w in ("いいえ", "いや", "ううん", "n", "no", "ちがう", "違う", "違います", "ちがいます")
)
#: The longest vote reason kept (the rest is cut, the vote is not refused).
REASON_LIMIT = 120

TARGET_ACTIONS = (Vote, Attack, Divine, Guard)


class HumanQuit(Exception):
    """The human typed ``/quit``: the session stops where it is (no secret is revealed)."""


class HumanSeat:
    """P1's questions for one game: ``game`` is asked for what P1 may do and applies it,
    ``human`` answers, ``show`` puts a line on P1's screen, ``record`` keeps an answer
    (prompt, text) in the session's events."""

    def __init__(
        self,
        game: Game,
        human: HumanInput,
        show: Callable[[str], None],
        record: Callable[[str, str], None],
        locale: Locale = "ja",
        *,
        web: bool = False,
    ) -> None:
        self.game = game
        self.human = human
        self.show = show
        self.record = record
        self.locale = locale
        self.web = web
        """P1 plays on a web page: the helps say how to stop there instead of ``/quit``."""

    def say(self, message: Message) -> None:
        """Show a catalogue message."""
        self.show(render(message, self.locale))

    def text(self, message: Message) -> str:
        """A catalogue message's text."""
        return render(message, self.locale)

    def commands(self, *, discussion: bool = False) -> str:
        """The command lines that end this seat's helps (see :func:`help_commands`)."""
        column = DISCUSSION_COLUMN if discussion else QUESTION_COLUMN
        return help_commands(self.locale, web=self.web, column=column)

    # ------------------------------------------------------------ asking

    def ask(
        self, prompt: str, help_text: Message, on_empty: Message | str, choices: Sequence[str] | None = None
    ) -> str:
        """The player's next answer to ``prompt`` that the game should hear.

        ``/help``, ``/log``, ``/votes`` and an empty line are answered here and asked again;
        every line but a quit is recorded.

        Raises:
            HumanQuit: the player typed a quit word.
        """
        while True:
            self.human.observe(observe(self.game, HUMAN_SEAT), self.game.legal_actions(HUMAN_SEAT))
            text = self.human.ask(prompt, choices)
            command = text.strip()
            if command in QUIT_WORDS:
                # not recorded: the transcript stops where the game stopped, so that resuming
                # it asks this question again
                raise HumanQuit(command)
            # every other line is recorded, also those answered on screen: the replay is the
            # player's typing line for line (and transcripts of earlier versions, which
            # recorded /help, still replay)
            self.record(prompt, text)
            if not command:
                self.show(on_empty if isinstance(on_empty, str) else self.text(on_empty))
            elif command.lower() in HELP_WORDS:
                self.say(help_text)
            elif command.lower() == "/log":
                self.show_log()
            elif command.lower() == "/votes":
                self.show_votes()
            else:
                return text

    def show_log(self) -> None:
        """``/log``: the public record so far, as P1 saw it."""
        view = player_view(self.game, HUMAN_SEAT)
        lines = render_entries(view.public.log, view, self.locale)
        if not lines:
            self.say(LogEmpty())
            return
        self.say(LogTitle())
        for line in lines:
            self.show(line)

    def show_votes(self) -> None:
        """``/votes``: every vote so far, by day (votes are public)."""
        view = player_view(self.game, HUMAN_SEAT).public
        names = [""] + [view.name(seat) for seat in range(1, 10)]
        tallies = [e for e in view.log if isinstance(e, VoteTally)]
        if not tallies:
            self.say(VotesNone())
            return
        for tally in tallies:
            self.say(VotesDay(tally.day))
            for line in vote_result_lines(tally, names):
                self.show(line)

    def _names(self) -> dict[int, str]:
        pub = player_view(self.game, HUMAN_SEAT).public
        return {seat: pub.name(seat) for seat in range(1, 10)}

    # ------------------------------------------------------------ the role

    def choose_role(self) -> None:
        """CMD_役職選択: a role number (or the role's name), applied."""
        menu = self.text(ListSeparator()).join(f"{int(r)} {r.label}" for r in Role)
        prompt = self.text(ChooseRolePrompt(menu))
        while True:
            numbers = [str(int(r)) for r in Role]
            text = self.ask(prompt, RoleHelp(menu, self.commands()), EmptyRole(), numbers).strip()
            role = _role_named(text)
            if role is None and text.startswith("/"):
                self.say(CommandNotHere(text.split()[0], self._here(HereRole())))
                continue
            if role is None:
                self.say(NotARole(text))
                continue
            try:
                self.game.apply(ChooseRole(HUMAN_SEAT, role))
            except IllegalActionError as exc:
                self.say(CannotDo(render_refusal(exc, ChooseRole(HUMAN_SEAT, role), self.locale)))
                continue
            return

    # ------------------------------------------------------------ the discussion

    def discussion(self) -> None:
        """P1's discussion turn (or its answer to a CO要求): one action, applied."""
        answering = self.game.awaiting_claim
        help_text: Message = DiscussionHelp(self.commands(discussion=True))
        if answering is not None:
            legal = self.game.legal_actions(HUMAN_SEAT)
            commands = [claim_command(a) for a in legal if isinstance(a, Claim)]
            # re-asked after coming out without a result: the results it may state now
            states = [a for a in legal if isinstance(a, StateResult)]
            commands += [f"/result {seat_label(a.target)} {a.colour.label}" for a in states]
            if any(isinstance(a, Decline) for a in legal):
                commands.append("/decline")
            sep = self.text(ListSeparator())
            shown = sep.join(commands[:6]) + (f"{sep}…" if len(commands) > 6 else "")
            prompt = self.text(self._answer_prompt(answering, shown))
            help_text = self._answer_help(answering, legal)
        else:
            prompt = self.text(DiscussionPrompt())
        while True:
            text = self.ask(prompt, help_text, EmptyLine())
            try:
                action = self._discussion_action(text)
            except CommandError as exc:
                self.say(exc.message)
                continue
            if action is None:
                continue  # a reading the player took back: asked again
            if answering is not None and isinstance(action, Speak | RequestClaim):
                # nothing the answer takes: say what it takes (the engine would only say
                # "answer first", and a slash command deserves its own name)
                line = text.strip()
                forms = self._answer_forms()
                if line.startswith("/"):
                    self.say(CommandNotHere(line.split()[0], forms))
                else:
                    self.say(AnswerNotRead(forms))
                continue
            try:
                self.game.apply(action)
            except IllegalActionError as exc:
                self.say(self._refusal(exc, action))
                continue
            return

    def _answer_prompt(self, answering: Role, shown: str) -> Message:
        """The question of a CO要求's answer; it says so when the answer takes P1's next
        discussion turn (the option ``answer_takes_turn``), the day's last one above all."""
        if not self.game.answer_takes_turn(HUMAN_SEAT):
            return AnswerPrompt(answering.label, shown)
        if self.game.turns_left(HUMAN_SEAT) == 1:
            return AnswerPromptLastSay(answering.label, shown)
        return AnswerPromptTakesTurn(answering.label, shown)

    def _answer_forms(self) -> str:
        """The answers a CO要求's answer may give now, each in words and as a command."""
        legal = self.game.legal_actions(HUMAN_SEAT)
        return "".join(self.text(form) for form in self._answer_form_messages(legal))

    def _answer_form_messages(self, legal: Sequence[Action]) -> list[Message]:
        names = self._names()
        forms: list[Message] = []
        claims = [a for a in legal if isinstance(a, Claim)]
        if claims:
            claim = next((c for c in claims if c.target is not None), claims[0])
            forms.append(AnswerFormClaim(_claim_words(claim, names), claim_command(claim)))
        states = [a for a in legal if isinstance(a, StateResult)]
        if states:
            state = states[0]
            words = f"{names[state.target]}は{state.colour.label}でした"
            forms.append(AnswerFormResult(words, f"/result {seat_label(state.target)} {state.colour.label}"))
        if any(isinstance(a, Decline) for a in legal):
            forms.append(AnswerFormDecline())
        return forms

    def _answer_help(self, answering: Role, legal: Sequence[Action]) -> Message:
        """``/help`` at a CO要求's answer: what it takes, and the discussion's commands it
        does not take (so that the help still names every command)."""
        forms = self._answer_form_messages(legal)
        answers = "\n".join(f"  {self.text(form)}" for form in forms)
        taken = {"/co": Claim, "/result": StateResult, "/decline": Decline}
        kinds = {type(a) for a in legal}
        unavailable = [
            c for c in ("/co", "/result", "/request", "/decline", "/pass") if taken.get(c) not in kinds
        ]
        listed = self.text(ListSeparator()).join(unavailable)
        return AnswerHelp(answering.label, answers, listed, self.commands())

    def _refusal(self, error: IllegalActionError, action: Action) -> Message:
        """What to tell P1 when the engine refused ``action``: the rule in the player's words,
        and for a claim typed without the result it needs, the form with an example."""
        if error.rule == RULE_CO_RESULT and isinstance(action, Claim) and action.target is None:
            legal = self.game.legal_actions(HUMAN_SEAT)
            example = next(
                (a for a in legal if isinstance(a, Claim) and a.role is action.role and a.target is not None),
                None,
            )
            if example is not None:
                words = _claim_words(example, self._names())
                return ClaimWithoutResult(action.role.label, words, claim_command(example))
        return CannotDo(render_refusal(error, action, self.locale))

    def _discussion_action(self, text: str) -> Action | None:
        """The action a discussion line stands for, an unsure reading confirmed first; None
        when the player takes the line back (to type it again).

        An unsure reading the rules allow is named back (はい: that action, いいえ: speech).
        One they refuse, or a line that reads as two actions, never becomes speech unasked:
        the player is told why and asked whether to say it as plain talk (はい) or type it
        again (いいえ); while a CO要求 is being answered, where speech is no answer, the
        refusal is shown and the question asked again.

        Raises:
            CommandError: a command with a wrong form.
            HumanQuit: the player quit at the confirmation.
        """
        line = " ".join(text.split())
        table = self._reader_table()
        action = parse_discussion(line, HUMAN_SEAT, table)
        if line.startswith("/") or not isinstance(action, Speak):
            return action
        reading = read_line(line, table)
        answering = self.game.awaiting_claim is not None
        if isinstance(reading.meaning, Speech):
            if reading.sure or answering:
                return action
            return action if self._confirm(self.text(ConfirmAmbiguous()), ConfirmSpeechHelp) else None
        if reading.sure:
            return action
        meant = meaning_action(reading.meaning, HUMAN_SEAT, line)
        refused = self.game.refusal(meant)
        named = reading_message(reading.meaning, self._names())
        if refused is not None and named is not None:
            if answering:
                self.say(self._refusal(refused, meant))
                return None
            why = render_refusal(refused, meant, self.locale)
            as_speech = self.text(ConfirmAsSpeech(self.text(named), why))
            return action if self._confirm(as_speech, ConfirmSpeechHelp) else None
        question = confirm_reading(reading.meaning, self._names(), self.locale)
        if question is None:
            return action
        return meant if self._confirm(question) else action

    def _confirm(self, question: str, help_kind: type[ConfirmHelp | ConfirmSpeechHelp] = ConfirmHelp) -> bool:
        """はい or いいえ to ``question`` (asked again until it is one of them)."""
        while True:
            typed = self.ask(question, help_kind(self.commands()), ConfirmAgain())
            answer = fold(typed).lower().rstrip("。!.")
            if answer in YES_WORDS:
                return True
            if answer in NO_WORDS:
                return False
            if typed.strip().startswith("/"):
                self.say(CommandNotHere(typed.split()[0], self._here(HereConfirm())))
                continue
            self.say(ConfirmAgain())

    def _here(self, answer: Message) -> str:
        """What a question takes: its answer, then the commands every question takes."""
        commands = ["/log", "/votes", "/help"] + ([] if self.web else ["/quit"])
        return self.text(HereCommands(self.text(answer), self.text(ListSeparator()).join(commands)))

    def _reader_table(self) -> Table:
        """What the phrase reader needs to know of P1's situation."""
        return Table.of(self._names(), self.game.awaiting_claim, self.game.claims.get(HUMAN_SEAT))

    # ------------------------------------------------------------ votes, the night, the 事前占い

    def choose_target(self, label: str, legal: Sequence[Action]) -> Action:
        """A choice of seat among ``legal`` (votes, the night, the 事前占い, the 決選投票);
        a vote's reason is asked after it."""
        options = [a for a in legal if isinstance(a, TARGET_ACTIONS)]
        names = self._names()
        seats = [a.target for a in options]
        menu = self.text(ListSeparator()).join(f"{seat_label(seat)} {names[seat]}" for seat in seats)
        prompt = self.text(TargetPrompt(label, menu))
        while True:
            empty = target_hint(TargetMiss("", "empty", tuple(seats)), names, self.locale)
            text = self.ask(prompt, ChoiceHelp(self.commands()), empty, [seat_label(s) for s in seats])
            if text.strip().startswith("/"):
                self.say(CommandNotHere(text.split()[0], self._here(HereTarget())))
                continue
            found = read_target(text, names, seats)
            if isinstance(found, TargetFound):
                action = next(a for a in options if a.target == found.seat)
                break
            self.show(target_hint(found, names, self.locale))
        if isinstance(action, Vote):
            action = Vote(HUMAN_SEAT, action.target, self._vote_reason())
        return action

    def _vote_reason(self) -> str:
        """The vote's reason as typed (cut at :data:`REASON_LIMIT`); ``/pass`` gives none,
        recorded as an empty reason (never as words P1 did not say)."""
        while True:
            reason = self.ask(self.text(VoteReasonPrompt()), ReasonHelp(self.commands()), EmptyReason())
            words = " ".join(reason.split())
            if words == "/pass":
                return ""
            if words.startswith("/"):
                self.say(CommandNotHere(words.split()[0], self._here(HereReason())))
                continue
            return words[:REASON_LIMIT]


def _claim_words(claim: Claim, names: Mapping[int, str]) -> str:
    """``claim`` as a player writes it at the table (「占い師です。アオトは白でした」)."""
    words = f"{claim.role.label}です"
    if claim.target is not None and claim.colour is not None:
        words += f"。{names[claim.target]}は{claim.colour.label}でした"
    return words


#: The roles' English names at the role prompt, with the names other tables use (the help
#: says "choose a role by its number or its name", in English too).
ENGLISH_ROLE_NAMES: dict[str, Role] = {
    "werewolf": Role.WEREWOLF, "wolf": Role.WEREWOLF,
    "villager": Role.VILLAGER,
    "seer": Role.SEER,
    "bodyguard": Role.BODYGUARD, "hunter": Role.BODYGUARD, "knight": Role.BODYGUARD, "guard": Role.BODYGUARD,
    "medium": Role.MEDIUM,
    "madman": Role.MADMAN, "possessed": Role.MADMAN,
}


def _role_named(text: str) -> Role | None:
    """The role an answer to CMD_役職選択 names: its number (1..6, full-width too) or its
    name as players write it (占い師, 占い, 狼, …, or in English: seer, Wolf, the medium);
    None for anything else."""
    word = fold(text).rstrip("。!.")
    if word.isdigit() and len(word) == 1 and 1 <= int(word) <= len(Role):
        return Role(int(word))
    english = " ".join(unicodedata.normalize("NFKC", text).lower().rstrip("。!.").split())
    english = english.removeprefix("the ").removeprefix("a ").removeprefix("an ")
    if english in ENGLISH_ROLE_NAMES:
        return ENGLISH_ROLE_NAMES[english]
    word = word.removesuffix("です").removesuffix("で").removesuffix("にします").removesuffix("がいい")
    for role, words in ROLE_WORDS.items():
        if word in {fold(w) for w in words}:
            return role
    return None
