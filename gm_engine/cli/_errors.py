"""The one place where the ``gm`` commands turn an error into what the player reads.

:func:`error_text` gives an exception in the player's language: the operating system's
errors (a missing file, a folder where a file should be, no permission, a full disk) by the
path and a catalogue sentence, never Python's ``[Errno 2] …`` text; an unknown scenario or
game system by name with the known ones; any other error by its own text (the engine's and
the transcripts' errors are rendered from the catalogue already). :func:`failed` is the
``gm COMMAND: …`` line of a command that stops on one. :class:`CliParser` is the
``ArgumentParser`` of every ``gm`` command: its errors (an invalid number, an unknown
choice, a missing argument) are in the player's language too; the help texts stay English,
as the README says.
"""

from __future__ import annotations

import argparse
import errno
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from gm_engine.messages import Message, locale_from_env, render
from gm_engine.messages.texts import (
    AmbiguousOption,
    ArgumentProblem,
    ArgumentsMissing,
    ArgumentsUnknown,
    CommandFailed,
    ExpectsAtLeastOne,
    ExpectsAtMostOne,
    ExpectsOneValue,
    ExplicitArgumentIgnored,
    Fault,
    NameTooLong,
    NoSpaceLeft,
    NoSuchPath,
    NoSuchSystem,
    NotAChoice,
    NotAllowedWith,
    NotANumber,
    NotAValue,
    NotAWholeNumber,
    OneOfMissing,
    PathExists,
    PathForbidden,
    PathIsFolder,
    PathNotFolder,
    PathProblem,
    PathReadOnly,
    Problem,
    ServerBadKey,
    ServerContextOverflow,
    ServerFailing,
    ServerMalformedAnswer,
    ServerMisconfigured,
    ServerMissingJinja,
    ServerNoConnection,
    ServerRateLimited,
    ServerSaid,
    ServerStatusRefused,
    ServerTimedOut,
    ServerUnknownModel,
    ServerUnnamedModel,
    SystemCaseDiffers,
    SystemFault,
    UsageError,
)
from gm_engine.safe_text import printable

if TYPE_CHECKING:
    from gm_engine.dice.result import Locale
    from gm_engine.llm.base import BackendError

_OS_FAULTS: dict[int, Callable[[], Message]] = {
    errno.ENOENT: NoSuchPath,
    errno.EACCES: PathForbidden,
    errno.EPERM: PathForbidden,
    errno.EISDIR: PathIsFolder,
    errno.ENOTDIR: PathNotFolder,
    errno.EROFS: PathReadOnly,
    errno.EEXIST: PathExists,
    errno.ENOSPC: NoSpaceLeft,
    errno.EDQUOT: NoSpaceLeft,
    errno.ENAMETOOLONG: NameTooLong,
}


def os_reason(exc: OSError, locale: Locale) -> str:
    """What is wrong, in the player's words, without the path (the symbolic errno name,
    ``EIO``, for a fault the catalogue has no sentence for)."""
    fault = _OS_FAULTS.get(exc.errno or 0)
    if fault is not None:
        return render(fault(), locale)
    code = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    return render(SystemFault(code), locale)


def os_error_text(exc: OSError, locale: Locale) -> str:
    """An operating system's error: the path it is about and what is wrong."""
    reason = os_reason(exc, locale)
    if exc.filename is None:
        return reason
    return render(PathProblem(path=str(exc.filename), reason=reason), locale)


def error_text(exc: BaseException, locale: Locale | None = None) -> str:
    """``exc`` in the player's language (``GM_LOCALE`` unless ``locale``), printable."""
    where = locale or locale_from_env()
    from pydantic import ValidationError

    from gm_engine.adventure.scenario import UnknownScenarioError
    from gm_engine.combat.errors import CombatError
    from gm_engine.dice.system import UnknownSystemError
    from gm_engine.llm.base import BackendError, ConfigurationError
    from gm_engine.messages.validation import validation_message
    from gm_engine.serve.store import StoreError

    problem = backend_problem(exc) if isinstance(exc, BackendError) else None
    text: str
    if problem is not None:
        text = render(problem, where)
        said = server_said(exc)
        if said:
            text = render(ServerSaid(text, said), where)
        if isinstance(exc, ConfigurationError):
            text = render(ServerMisconfigured(text), where)
    elif isinstance(exc, OSError):
        text = os_error_text(exc, where)
    elif isinstance(exc, UnknownScenarioError):
        text = render(exc.message, where)
    elif isinstance(exc, UnknownSystemError) and exc.alike:
        text = render(SystemCaseDiffers(exc.system_id, exc.alike), where)
    elif isinstance(exc, UnknownSystemError) and exc.system_id:
        text = render(NoSuchSystem(exc.system_id, ", ".join(exc.known)), where)
    elif isinstance(exc, CombatError | StoreError):  # errors that carry a catalogue reason
        text = render(exc.explanation(), where)
    elif isinstance(exc, ValidationError):
        text = render(validation_message(exc), where)
    else:
        text = str(exc)
    return printable(text)


def failed(command: str, exc: BaseException, locale: Locale | None = None) -> str:
    """The line of a command stopped by ``exc``: ``gm resume: /x: そのファイルかフォルダーはありません``."""
    where = locale or locale_from_env()
    return render(CommandFailed(command=command, error=error_text(exc, where)), where)


# ---------------------------------------------------------------- argparse

_Translate = Callable[[re.Match[str]], Message]

#: argparse's own messages (Python 3.11 to 3.13), matched on the text it formats.
_ARGPARSE: tuple[tuple[re.Pattern[str], _Translate], ...] = (
    (re.compile(r"invalid int value: '(?P<v>.*)'$"), lambda m: NotAWholeNumber(m["v"])),
    (re.compile(r"invalid float value: '(?P<v>.*)'$"), lambda m: NotANumber(m["v"])),
    (
        re.compile(r"invalid (?P<kind>\S+) value: '(?P<v>.*)'$"),
        lambda m: NotAValue(m["v"], m["kind"]),
    ),
    (
        re.compile(r"invalid choice: '?(?P<v>.*?)'? \(choose from (?P<choices>.*)\)$"),
        lambda m: NotAChoice(m["v"], m["choices"].replace("'", "")),
    ),
    (re.compile(r"the following arguments are required: (?P<a>.*)$"), lambda m: ArgumentsMissing(m["a"])),
    (re.compile(r"one of the arguments (?P<a>.*) is required$"), lambda m: OneOfMissing(m["a"])),
    (re.compile(r"unrecognized arguments: (?P<a>.*)$"), lambda m: ArgumentsUnknown(m["a"])),
    (re.compile(r"not allowed with argument (?P<o>.*)$"), lambda m: NotAllowedWith(m["o"])),
    (re.compile(r"expected one argument$"), lambda m: ExpectsOneValue()),
    (re.compile(r"expected at most one argument$"), lambda m: ExpectsAtMostOne()),
    (re.compile(r"expected at least one argument$"), lambda m: ExpectsAtLeastOne()),
    (
        re.compile(r"ambiguous option: (?P<o>\S+) could match (?P<m>.*)$"),
        lambda m: AmbiguousOption(m["o"], m["m"]),
    ),
    (re.compile(r"ignored explicit argument '(?P<v>.*)'$"), lambda m: ExplicitArgumentIgnored(m["v"])),
)
_ARGUMENT = re.compile(r"argument (?P<name>[^:]+): (?P<rest>.*)$", re.DOTALL)


def argparse_problem(message: str, locale: Locale) -> str:
    """argparse's ``message`` in the player's language; a message this table does not know
    (one of our own ``type=`` functions' words) is kept as it is."""
    argument = _ARGUMENT.match(message)
    rest = argument["rest"] if argument else message
    for pattern, translate in _ARGPARSE:
        found = pattern.match(rest)
        if found:
            rest = render(translate(found), locale)
            break
    if argument is None:
        return rest
    return render(ArgumentProblem(argument=argument["name"], problem=rest), locale)


class CliParser(argparse.ArgumentParser):
    """The parser of ``gm`` and of its subcommands (``add_subparsers`` makes them of the
    same class): its errors are in the player's language (``GM_LOCALE``)."""

    def error(self, message: str) -> NoReturn:
        """Print the error in the player's language and exit with status 2."""
        locale = locale_from_env()
        problem = argparse_problem(message, locale)
        text = render(UsageError(prog=self.prog, problem=problem), locale)
        self.exit(2, printable(text) + "\n")


def print_failed(command: str, exc: BaseException) -> None:
    """Print :func:`failed` to standard error."""
    print(failed(command, exc), file=sys.stderr)


# ---------------------------------------------------------------- the model server

_DIAGNOSES: dict[str, Message] = {
    "missing_jinja": ServerMissingJinja(),
    "context_overflow": ServerContextOverflow(),
    "bad_key": ServerBadKey(),
}


def server_said(exc: BaseException) -> str:
    """The server's own words in the error answer behind ``exc`` (at most 200 characters),
    or empty when no answer is behind it."""
    import openai

    from gm_engine.llm.openai_backend import server_words

    cause = exc.__cause__
    return server_words(cause)[:200] if isinstance(cause, openai.APIStatusError) else ""


def backend_problem(exc: BackendError) -> Message | None:
    """What a model backend's error means, as a catalogue message (the backend's own
    English, with the server's words, stays in the exception for logs); None for an error
    this table does not know."""
    from gm_engine.llm.base import ConfigurationError, MalformedAnswerError, TransientBackendError

    if isinstance(exc, ConfigurationError):
        if exc.kind == "unknown_model":
            return ServerUnknownModel(exc.model) if exc.model else ServerUnnamedModel()
        return _DIAGNOSES.get(exc.kind)
    if isinstance(exc, MalformedAnswerError):
        return ServerMalformedAnswer()
    status = exc.status if isinstance(exc, TransientBackendError) else None
    cause = exc.__cause__
    if status is None and cause is not None:
        status = getattr(cause, "status_code", None)
    if status == 429:
        return ServerRateLimited()
    if isinstance(status, int) and status >= 500:
        return ServerFailing(status)
    if isinstance(status, int) and not isinstance(exc, TransientBackendError):
        return ServerStatusRefused(status)
    if isinstance(exc, TransientBackendError):
        timed_out = cause is None or "Timeout" in type(cause).__name__
        return ServerTimedOut() if timed_out else ServerNoConnection()
    return None


def file_problem(exc: OSError, locale: Locale) -> str:
    """Why a file cannot be read or written, in the player's words where the catalogue has
    them (the system's own words, which follow its locale, otherwise): never Python's
    ``[Errno 2] …`` text."""
    faults = {
        FileNotFoundError: Fault.FILE_NOT_FOUND,
        PermissionError: Fault.FILE_FORBIDDEN,
        IsADirectoryError: Fault.FILE_IS_FOLDER,
    }
    fault = faults.get(type(exc))
    return render(Problem(fault), locale) if fault is not None else exc.strerror or str(exc)
