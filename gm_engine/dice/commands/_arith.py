"""The one dice-syntax module: BCDice's first-word split, its lexer, comparison
operators, the expression trees of add dice (``2D6+1``) and of plain arithmetic
(``C(1+2)``, the ``(1+2)`` that the preprocessor folds), their parsers and Ruby's
integer and rounding rules (``/U /C /R /F``).

Every reader of command text uses it: the engine's preprocessor of system commands
(:func:`fold_parentheses`, also behind ``gm_engine.dice.systems._bcdice.normalize``), add
dice and ``C()``, the dice-pool commands (``xBy``, ``xRy``, ``xUy``, ``xTYy``) and the
game systems' argument parsers through :class:`ExpressionCursor`.

The parsers are hand-written recursive descent over BCDice's grammars (its Racc files
``add_dice/parser.y``, ``calc/parser.y`` and ``arithmetic/parser.y``); the trees are
immutable, so a parsed command is cached and evaluated again with fresh dice.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from gm_engine.dice.system import CompareOp, RoundType

#: Ruby's ``\\s``: the ASCII whitespace that separates a command from its comment.
#: (A full-width space is an ordinary character in BCDice.)
ASCII_WHITESPACE = " \t\n\v\f\r"

#: Deepest nesting of parentheses or signs the parsers accept; deeper input is
#: refused with :class:`TooComplexError` rather than exhausting Python's stack.
MAX_NESTING = 100

_TOKEN = re.compile(r"[0-9]+|[<>!=]+|.", re.DOTALL)
_SPLIT = re.compile(r"[ \t\n\v\f\r]+")

Token = int | str


class TooComplexError(ValueError):
    """An expression nests deeper than its parser reads: parentheses past
    :data:`MAX_NESTING` (:data:`MAX_POOL_NESTING` for an :class:`ExpressionCursor`),
    or more than five times as many signs in a row."""


class ArithmeticFailure(ValueError):
    """A division by zero, or a number too large for Ruby's float rounding."""

    def __init__(self, reason: Literal["zero_division", "overflow"]) -> None:
        super().__init__(reason)
        self.reason = reason


@lru_cache(maxsize=4096)
def first_word(text: str) -> str:
    """The command part of a chat line: Ruby's ``text.split(" ", 2).first``.

    Leading ASCII whitespace is skipped and the word ends at the next one.
    """
    start = 0
    end = len(text)
    while start < end and text[start] in ASCII_WHITESPACE:
        start += 1
    match = _SPLIT.search(text, start)
    return text[start : match.start()] if match else text[start:]


#: What a secret ``S`` prefix may be written as: U+017F (long s) upcases to S, as in Ruby.
SECRET_PREFIXES = ("S", "s", "\u017f")


def is_secret(word: str) -> bool:
    """Whether a command word starts with the secret ``S`` prefix (and has more after it)."""
    return len(word) > 1 and word.startswith(SECRET_PREFIXES)


def without_secret(word: str) -> str:
    """The command word without its secret ``S`` prefix (``S2D6`` -> ``2D6``)."""
    return word[1:] if is_secret(word) else word


def normalize_comparison(op: str) -> CompareOp | None:
    """BCDice's ``Normalize.comparison_operator``: searched, not anchored, in this order."""
    if "<=" in op or "=<" in op:
        return "<="
    if ">=" in op or "=>" in op:
        return ">="
    if "<>" in op or "!=" in op or "=!" in op:
        return "!="
    if "<" in op:
        return "<"
    if ">" in op:
        return ">"
    if "=" in op:
        return "=="
    return None


@lru_cache(maxsize=4096)
def tokenize(word: str) -> tuple[Token, ...]:
    """BCDice's common lexer over one word: numbers (ASCII digits), runs of ``<>!=``
    as one comparison token, and every other character upcased on its own."""
    tokens: list[Token] = []
    for piece in _TOKEN.findall(word):
        first = piece[0]
        if "0" <= first <= "9":
            tokens.append(int(piece))
        elif first in "<>!=":
            tokens.append(piece)
        else:
            tokens.append(piece.upper())
    return tuple(tokens)


def is_comparison(token: Token) -> bool:
    """Whether a token is a comparison run (``<=``, ``<>``, ``=`` ...)."""
    return isinstance(token, str) and token[:1] in ("<", ">", "!", "=")


# ----------------------------------------------------------------------------------
# Ruby's division and rounding
# ----------------------------------------------------------------------------------


def _to_float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _float_quotient(dividend: int, divisor: int) -> float:
    quotient = _to_float(dividend) / _to_float(divisor)
    if math.isinf(quotient) or math.isnan(quotient):
        # Ruby raises FloatDomainError here; the command cannot be answered.
        raise ArithmeticFailure("overflow")
    return quotient


def ceil_divide(dividend: int, divisor: int) -> int:
    """``(dividend.to_f / divisor).ceil`` as Ruby computes it (through a float)."""
    return math.ceil(_float_quotient(dividend, divisor))


def round_divide(dividend: int, divisor: int) -> int:
    """``(dividend.to_f / divisor).round``: a float rounded half away from zero."""
    quotient = _float_quotient(dividend, divisor)
    magnitude = abs(quotient)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:
        whole += 1
    return whole if quotient >= 0 else -whole


def floor_divide(dividend: int, divisor: int) -> int:
    """Ruby's ``Integer#/``: exact division rounded towards negative infinity."""
    return dividend // divisor


def divide(dividend: int, divisor: int, mode: RoundType) -> int:
    """Divide with one of the three rounding modes (the divisor is not zero)."""
    if mode == "floor":
        return dividend // divisor
    if mode == "ceil":
        return ceil_divide(dividend, divisor)
    return round_divide(dividend, divisor)


# ----------------------------------------------------------------------------------
# Expression trees
# ----------------------------------------------------------------------------------

#: How a division rounds: None follows the game system's ``round_type``.
DivideMode = RoundType | None
FilterKind = Literal["KH", "KL", "DH", "DL"]


@dataclass(frozen=True, slots=True)
class Number:
    """A literal whole number."""

    value: int


@dataclass(frozen=True, slots=True)
class Paren:
    """An expression in parentheses (kept, because BCDice prints them)."""

    body: Node


@dataclass(frozen=True, slots=True)
class Negate:
    """Unary minus."""

    body: Node


@dataclass(frozen=True, slots=True)
class Binary:
    """``+``, ``-`` or ``*``."""

    left: Node
    op: Literal["+", "-", "*"]
    right: Node


@dataclass(frozen=True, slots=True)
class Divide:
    """``/`` with its rounding: ``mode`` None is the system's; ``mark`` is the suffix
    BCDice prints (add dice write ceil as ``U``, arithmetic as ``C``)."""

    left: Node
    right: Node
    mode: DivideMode
    mark: str


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """``xDy``, optionally keeping or dropping some dice (``KH3`` ...).

    ``sides`` None means the system's implicit sides (``2D``). ``plain`` is true for
    BCDice's ``DiceRoll`` class (no filter), which prints a single die without its
    breakdown.
    """

    times: Node
    sides: Node | None
    filter: FilterKind | None = None
    count: Node | None = None

    @property
    def plain(self) -> bool:
        """Whether this is a plain roll, without keep or drop."""
        return self.filter is None


Node = Number | Paren | Negate | Binary | Divide | DiceRoll


def include_dice(node: Node) -> bool:
    """Whether an expression rolls dice."""
    if isinstance(node, DiceRoll):
        return True
    if isinstance(node, Number):
        return False
    if isinstance(node, Binary | Divide):
        return include_dice(node.left) or include_dice(node.right)
    return include_dice(node.body)


# ----------------------------------------------------------------------------------
# Parsers
# ----------------------------------------------------------------------------------


class ParseFailure(Exception):
    """The tokens do not follow the grammar; the command then answers None (internal
    to the commands: no parser lets it reach the engine's caller)."""


_ADD_DICE_ROUNDING: dict[Token, tuple[DivideMode, str]] = {
    "F": ("floor", "F"),
    "U": ("ceil", "U"),
    "C": ("ceil", "U"),
    "R": ("round", "R"),
}
_ARITHMETIC_ROUNDING: dict[Token, tuple[DivideMode, str]] = {
    "F": ("floor", "F"),
    "U": ("ceil", "C"),
    "C": ("ceil", "C"),
    "R": ("round", "R"),
}
_FILTERS: dict[tuple[Token, Token], FilterKind] = {
    ("K", "H"): "KH",
    ("K", "L"): "KL",
    ("D", "H"): "DH",
    ("D", "L"): "DL",
}


class _Parser:
    """Recursive descent over BCDice's expression grammars.

    ``dice`` enables the add-dice productions (``xDy``, filters, ``expand_negate``);
    without it this is the plain arithmetic grammar of ``C()`` and the preprocessor.
    """

    __slots__ = ("depth", "dice", "max_depth", "pos", "rounding", "tokens")

    def __init__(self, tokens: tuple[Token, ...], *, dice: bool, max_depth: int = MAX_NESTING) -> None:
        self.tokens = tokens
        self.pos = 0
        self.dice = dice
        self.depth = 0
        self.max_depth = max_depth
        self.rounding = _ADD_DICE_ROUNDING if dice else _ARITHMETIC_ROUNDING

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def accept(self, token: str) -> bool:
        if self.pos < len(self.tokens) and self.tokens[self.pos] == token:
            self.pos += 1
            return True
        return False

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise TooComplexError(f"more than {self.max_depth} nested parentheses")

    # add: add PLUS mul | add MINUS mul | mul
    def add(self) -> Node:
        left = self.mul()
        while True:
            if self.accept("+"):
                op: Literal["+", "-"] = "+"
            elif self.accept("-"):
                op = "-"
            else:
                return left
            right = self.mul()
            if self.dice and isinstance(right, Negate):
                # BCDice's expand_negate: ``a+-b`` is ``a-b`` and ``a--b`` is ``a+b``.
                op = "-" if op == "+" else "+"
                right = right.body
            left = Binary(left, op, right)

    # mul: mul ASTERISK unary | mul SLASH unary round_type | unary
    def mul(self, first: Node | None = None) -> Node:
        """``first``: the leading unary when the caller has already read it."""
        left = self.unary() if first is None else first
        while True:
            if self.accept("*"):
                left = Binary(left, "*", self.unary())
            elif self.accept("/"):
                right = self.unary()
                mode, mark = self.rounding.get(self.peek() or "", (None, ""))
                if mark:
                    self.pos += 1
                left = Divide(left, right, mode, mark)
            else:
                return left

    # unary: PLUS unary | MINUS unary | dice (or term)
    def unary(self) -> Node:
        signs: list[str] = []
        while True:
            token = self.peek()
            if token == "+" or token == "-":
                signs.append(token)
                self.pos += 1
                if len(signs) > MAX_NESTING * 5:
                    raise TooComplexError("too many signs in a row")
            else:
                break
        node = self.dice_or_term() if self.dice else self.term()
        for sign in reversed(signs):
            if sign == "-":
                # add dice cancel a double minus; plain arithmetic keeps both
                node = node.body if self.dice and isinstance(node, Negate) else Negate(node)
        return node

    def dice_or_term(self) -> Node:
        if self.accept("D"):
            # dice: D term [filter]   (one die)
            one_sides = self.term()
            if include_dice(one_sides) or (isinstance(one_sides, Number) and one_sides.value == 66):
                raise ParseFailure  # ``D66`` alone belongs to the D66 command
            if self.peek() in ("K", "D", "M"):
                kind, count = self.filter()
                if include_dice(count):
                    raise ParseFailure
                return DiceRoll(Number(1), one_sides, kind, count)
            return DiceRoll(Number(1), one_sides)
        times = self.term()
        if not self.accept("D"):
            return times
        if include_dice(times):
            raise ParseFailure
        nxt = self.peek()
        sides: Node | None = None
        if isinstance(nxt, int) or nxt == "(":
            sides = self.term()
            if include_dice(sides):
                raise ParseFailure
            nxt = self.peek()
        if nxt in ("K", "D", "M"):
            kind, count = self.filter()
            if include_dice(count):
                raise ParseFailure
            return DiceRoll(times, sides, kind, count)
        return DiceRoll(times, sides)

    # filter: filter_type term | filter_type | M A X | M I N
    def filter(self) -> tuple[FilterKind, Node]:
        if self.accept("M"):
            if self.accept("A") and self.accept("X"):
                return "KH", Number(1)
            if self.accept("I") and self.accept("N"):
                return "KL", Number(1)
            raise ParseFailure
        first = self.peek()
        self.pos += 1
        kind = _FILTERS.get((first or "", self.peek() or ""))
        if kind is None:
            raise ParseFailure
        self.pos += 1
        nxt = self.peek()
        if isinstance(nxt, int) or nxt == "(":
            return kind, self.term()
        return kind, Number(1)

    # term: PARENL add PARENR | NUMBER
    def term(self) -> Node:
        token = self.peek()
        if isinstance(token, int):
            self.pos += 1
            return Number(token)
        if token == "(":
            self.pos += 1
            self.enter()
            body = self.add()
            self.depth -= 1
            if not self.accept(")"):
                raise ParseFailure
            return Paren(body)
        raise ParseFailure


@dataclass(frozen=True, slots=True)
class AddDiceCommand:
    """A parsed add-dice command: the roll, and its comparison if any.

    ``target`` None with an ``op`` is the undecided target ``?``.
    """

    expression: Node
    op: CompareOp | None = None
    target: Node | None = None


@lru_cache(maxsize=4096)
def parse_add_dice(word: str) -> AddDiceCommand | None:
    """Parse the command word (its secret ``S`` already removed) as add dice, or None.

    Raises:
        TooComplexError: the expression nests deeper than :data:`MAX_NESTING`.
    """
    parser = _Parser(tokenize(word), dice=True)
    try:
        expression = parser.add()
        if not include_dice(expression):
            return None
        token = parser.peek()
        if token is None:
            return AddDiceCommand(expression)
        if not is_comparison(token):
            return None
        parser.pos += 1
        op = normalize_comparison(str(token))
        target: Node | None = None
        if not parser.accept("?"):
            target = parser.add()
            if include_dice(target):
                return None
        if op is None or not parser.at_end():
            return None
        return AddDiceCommand(expression, op, target)
    except ParseFailure:
        return None


@dataclass(frozen=True, slots=True)
class CalcCommand:
    """A parsed ``C(...)`` command."""

    expression: Node


@lru_cache(maxsize=1024)
def parse_calc(word: str) -> CalcCommand | None:
    """Parse the command word (its secret ``S`` already removed) as ``C`` arithmetic, or None.

    Raises:
        TooComplexError: the expression nests deeper than :data:`MAX_NESTING`.
    """
    parser = _Parser(tokenize(word), dice=False)
    try:
        if not parser.accept("C"):
            return None
        expression = parser.add()
        if not parser.at_end():
            return None
        return CalcCommand(expression)
    except ParseFailure:
        return None


def parse_arithmetic(text: str) -> Node | None:
    """Parse plain arithmetic (no dice), or None when it does not follow the grammar.

    Raises:
        TooComplexError: the expression nests deeper than :data:`MAX_NESTING`.
    """
    parser = _Parser(tokenize(text), dice=False)
    try:
        node = parser.add()
    except ParseFailure:
        return None
    return node if parser.at_end() else None


#: Deepest parentheses an :class:`ExpressionCursor` accepts: the depth the dice-pool
#: commands' former stack-bound parser reached at the top level of a line.
MAX_POOL_NESTING = 200


class ExpressionCursor(_Parser):
    """A token-by-token reader for the grammars built on BCDice's plain arithmetic: the
    dice-pool commands (``xBy``, ``xRy``, ``xUy``, ``xTYy``) and the game systems'
    arguments. It reads the arithmetic of ``C()`` (:meth:`term`, :meth:`add`,
    :meth:`mul`) and comparisons; a caller walks it along its own grammar and raises
    :class:`ParseFailure` where that grammar is not followed.
    """

    __slots__ = ()

    def __init__(self, tokens: tuple[Token, ...]) -> None:
        super().__init__(tokens, dice=False, max_depth=MAX_POOL_NESTING)

    def expect(self, symbol: str) -> None:
        """Step over ``symbol`` or fail."""
        if not self.accept(symbol):
            raise ParseFailure

    def starts_term(self) -> bool:
        """Whether a ``term`` (a number or a parenthesis) comes next."""
        token = self.peek()
        return isinstance(token, int) or token == "("

    def comparison(self) -> CompareOp | None:
        """Step over a comparison: its operator, or None if none is next.

        Raises:
            ParseFailure: a run of ``<>!=`` that means nothing (``!``).
        """
        token = self.peek()
        if token is None or not is_comparison(token):
            return None
        op = normalize_comparison(str(token))
        if op is None:
            raise ParseFailure
        self.pos += 1
        return op

    def target(self) -> tuple[CompareOp | None, Node | None]:
        """``target: (none) | CMP add``."""
        op = self.comparison()
        if op is None:
            return None, None
        return op, self.add()


def command_cursor(word: str) -> ExpressionCursor:
    """An :class:`ExpressionCursor` over a command word, past its secret ``S`` if it has one.

    Raises:
        ParseFailure: a number in it is too long to read.
    """
    try:
        tokens = tokenize(word)
    except ValueError:  # more digits than Python converts to an int
        raise ParseFailure from None
    cursor = ExpressionCursor(tokens)
    cursor.accept("S")
    return cursor


def evaluate_arithmetic(node: Node, round_type: RoundType, *, zero_divisor_gives: int | None = None) -> int:
    """The value of an expression without dice, as BCDice's ``Arithmetic`` nodes.

    Add dice give 1 for any division by zero (``zero_divisor_gives=1``); plain
    arithmetic refuses it.

    Raises:
        ArithmeticFailure: division by zero (when refused), or a float rounding Ruby
            cannot do.
    """
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Binary):
        left = evaluate_arithmetic(node.left, round_type, zero_divisor_gives=zero_divisor_gives)
        right = evaluate_arithmetic(node.right, round_type, zero_divisor_gives=zero_divisor_gives)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        return left * right
    if isinstance(node, Divide):
        left = evaluate_arithmetic(node.left, round_type, zero_divisor_gives=zero_divisor_gives)
        right = evaluate_arithmetic(node.right, round_type, zero_divisor_gives=zero_divisor_gives)
        if right == 0:
            if zero_divisor_gives is None:
                raise ArithmeticFailure("zero_division")
            return zero_divisor_gives
        return divide(left, right, node.mode or round_type)
    if isinstance(node, Negate):
        return -evaluate_arithmetic(node.body, round_type, zero_divisor_gives=zero_divisor_gives)
    if isinstance(node, Paren):
        return evaluate_arithmetic(node.body, round_type, zero_divisor_gives=zero_divisor_gives)
    raise TypeError(f"dice in plain arithmetic: {node!r}")


def render_arithmetic(node: Node) -> str:
    """The expression as BCDice prints it back (``-1--1``, ``1/2C``)."""
    if isinstance(node, Number):
        return str(node.value)
    if isinstance(node, Binary):
        return f"{render_arithmetic(node.left)}{node.op}{render_arithmetic(node.right)}"
    if isinstance(node, Divide):
        return f"{render_arithmetic(node.left)}/{render_arithmetic(node.right)}{node.mark}"
    if isinstance(node, Negate):
        return f"-{render_arithmetic(node.body)}"
    if isinstance(node, Paren):
        return f"({render_arithmetic(node.body)})"
    raise TypeError(f"dice in plain arithmetic: {node!r}")


# ----------------------------------------------------------------------------------
# The preprocessor of game-system commands
# ----------------------------------------------------------------------------------

_PARENTHESISED = re.compile(r"\([0-9/+*\-CURF]+\)")
_IMPLICIT_D = re.compile(r"([0-9]+)[Dd]([^A-Za-z0-9_]|$)")


def _fold(match: re.Match[str], round_type: RoundType) -> str:
    try:
        node = parse_arithmetic(match.group(0))
        if node is None:
            return match.group(0)
        return str(evaluate_arithmetic(node, round_type))
    except (ArithmeticFailure, TooComplexError):
        return match.group(0)


@lru_cache(maxsize=4096)
def fold_parentheses(text: str, round_type: RoundType) -> str:
    """Compute every ``(arithmetic)`` in ``text`` until none is left, as BCDice's
    preprocessor does before a game system reads its command (``CC(1)`` -> ``CC1``)."""
    if "(" not in text:
        return text
    while True:
        folded = _PARENTHESISED.sub(lambda m: _fold(m, round_type), text)
        if folded == text:
            return folded
        text = folded


def expand_implicit_d(text: str, sides: int) -> str:
    """Write ``2D`` as ``2D6`` (the system's implicit sides) where no sides follow."""
    if "d" not in text and "D" not in text:
        return text
    return _IMPLICIT_D.sub(lambda m: f"{m.group(1)}D{sides}{m.group(2)}", text)
