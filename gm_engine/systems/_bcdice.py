"""BCDice's input conventions, shared by the game systems of this package.

BCDice reads a command after two steps the game systems rely on: parenthesised
arithmetic such as ``(1+1)`` or ``(-1)`` is computed in place (so ``CC(-1)<=50`` is
read as ``CC-1<=50``), and the command is upper-cased. :func:`normalize` performs both;
it is idempotent, so a pipeline that already did either step loses nothing.

Also here: BCDice's integer arithmetic (``+ - * /`` with ``/U /C /R /F`` rounding
suffixes and the system's default rounding) and the detail a system returns when it
refuses a command with a message.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel

from gm_engine.dice.result import Detail, Outcome

RoundType = Literal["floor", "ceil", "round"]

# BCDice's preprocessor computes parentheses holding only digits, operators and
# rounding letters; Ruby's \d is ASCII-only, hence the explicit class.
_PARENTHESES = re.compile(r"\([0-9/+*\-CURF]+\)")
_TOKEN = re.compile(r"[0-9]+|[<>!=]+|.", re.DOTALL)


_M = TypeVar("_M", bound=BaseModel)
_set = object.__setattr__


def construct(cls: type[_M], values: dict[str, Any]) -> _M:
    """Build a model from ``values`` that hold every field, already valid, unvalidated.

    This is what ``model_construct`` ends with, without its per-field bookkeeping,
    which costs more than validation itself; the hot paths of the dice commands use it
    for values they computed. Tests check that it equals the validated model.
    """
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def outcome(
    text: str,
    detail: Detail | None,
    success: bool = False,
    failure: bool = False,
    critical: bool = False,
    fumble: bool = False,
) -> Outcome:
    """An :class:`Outcome` built without validation (see :func:`construct`)."""
    return construct(
        Outcome,
        {
            "text": text,
            "success": success,
            "failure": failure,
            "critical": critical,
            "fumble": fumble,
            "detail": detail,
        },
    )


class SystemRefusalDetail(Detail):
    """A system command that was recognised but refused: ``reason`` is the message shown."""

    kind: Literal["system_refusal"] = "system_refusal"
    system: str
    command: str
    reason: str


def refusal(system: str, command: str, text: str) -> Outcome:
    """An outcome with only a message (BCDice answers bad arguments this way: no flags)."""
    detail = SystemRefusalDetail(system=system, command=command, reason=text)
    return Outcome(text=text, detail=detail)


@lru_cache(maxsize=4096)
def normalize(command: str, round_type: RoundType = "floor") -> str:
    """Compute parenthesised arithmetic in place, then upper-case, as BCDice does."""
    if "(" in command:
        while True:
            replaced = _PARENTHESES.sub(lambda m: _replace_group(m.group(0), round_type), command)
            if replaced == command:
                break
            command = replaced
    return command.upper()


def _replace_group(group: str, round_type: RoundType) -> str:
    value = eval_arithmetic(group, round_type)
    return group if value is None else str(value)


def tokenize(text: str) -> list[str]:
    """Split into BCDice lexer tokens: numbers, comparison runs and single characters."""
    return _TOKEN.findall(text)


def comparison_operator(token: str) -> str | None:
    """BCDice's reading of a run of ``<>!=`` characters, or None when it means nothing."""
    if "<=" in token or "=<" in token:
        return "<="
    if ">=" in token or "=>" in token:
        return ">="
    if "<>" in token or "!=" in token or "=!" in token:
        return "!="
    if "<" in token:
        return "<"
    if ">" in token:
        return ">"
    if "=" in token:
        return "=="
    return None


def divide(dividend: int, divisor: int, mode: RoundType) -> int:
    """Integer division with BCDice's rounding (Ruby's floor, ceil, round half away from zero).

    Raises:
        ZeroDivisionError: ``divisor`` is zero.
    """
    if mode == "floor":
        return dividend // divisor
    if mode == "ceil":
        return -((-dividend) // divisor)
    quotient, remainder = divmod(abs(dividend), abs(divisor))
    if 2 * remainder >= abs(divisor):
        quotient += 1
    return quotient if (dividend >= 0) == (divisor > 0) else -quotient


class ArithmeticParser:
    """Recursive descent over BCDice tokens for ``add`` expressions.

    ``pos`` moves past what was read; methods raise ``ValueError`` on a syntax error
    and ``ZeroDivisionError`` on a division by zero.
    """

    _ROUNDING: ClassVar[dict[str, RoundType]] = {"U": "ceil", "C": "ceil", "R": "round", "F": "floor"}

    def __init__(self, tokens: list[str], round_type: RoundType = "floor", pos: int = 0) -> None:
        self.tokens = tokens
        self.round_type = round_type
        self.pos = pos

    def peek(self) -> str | None:
        """The next token, or None at the end."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def add(self) -> int:
        """``mul (('+'|'-') mul)*``."""
        value = self.mul()
        while (token := self.peek()) in ("+", "-"):
            self.pos += 1
            rhs = self.mul()
            value = value + rhs if token == "+" else value - rhs
        return value

    def mul(self) -> int:
        """``unary (('*' unary) | ('/' unary [U|C|R|F]))*``."""
        value = self.unary()
        while (token := self.peek()) in ("*", "/"):
            self.pos += 1
            rhs = self.unary()
            if token == "*":
                value *= rhs
                continue
            mode = self.round_type
            suffix = self.peek()
            if suffix is not None and suffix.upper() in self._ROUNDING:
                mode = self._ROUNDING[suffix.upper()]
                self.pos += 1
            value = divide(value, rhs, mode)
        return value

    def unary(self) -> int:
        """``'+' unary | '-' unary | term``."""
        token = self.peek()
        if token == "+":
            self.pos += 1
            return self.unary()
        if token == "-":
            self.pos += 1
            return -self.unary()
        return self.term()

    def term(self) -> int:
        """``'(' add ')' | NUMBER``."""
        token = self.peek()
        if token == "(":
            self.pos += 1
            value = self.add()
            if self.peek() != ")":
                raise ValueError("missing )")
            self.pos += 1
            return value
        if token is not None and "0" <= token[0] <= "9":
            self.pos += 1
            return int(token)
        raise ValueError(f"unexpected {token!r}")


def eval_arithmetic(text: str, round_type: RoundType = "floor") -> int | None:
    """The value of a whole arithmetic expression, or None when it does not parse
    or divides by zero (as BCDice's ``Arithmetic.eval``)."""
    parser = ArithmeticParser(tokenize(text), round_type)
    try:
        value = parser.add()
    except (ValueError, ZeroDivisionError):
        return None
    if parser.pos != len(parser.tokens):
        return None
    return value
