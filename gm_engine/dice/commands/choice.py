"""Choice: pick items at random from a list written in the command.

Forms, as in BCDice: ``choice[A,B,C]`` and ``choice(A,B,C)`` split on commas (so items
may hold the other kind of bracket), ``choice A B C`` splits on whitespace (so items
may hold commas). Items are stripped and empty ones dropped. ``choiceN[...]`` picks N
different items. A single item ``A-F`` / ``c-g`` / ``3-10`` stands for the whole range.
More than 100 items gives BCDice's message; fewer items than picks is not a command.

Unlike the dice commands, choice reads the whole line (its space form has no comment),
so it must be given the line as typed, not upper-cased.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from gm_engine.dice.commands.barabara_dice import LINE_HEAD, build_outcome
from gm_engine.dice.limits import SECRET_FLAG
from gm_engine.dice.result import Detail, Locale, Outcome, construct
from gm_engine.dice.system import RollContext

#: The most items a choice may list.
MAX_ITEMS: Final = 100

ChoiceStyle = Literal["bracket", "paren", "space"]

_RUBY_SPACE = " \t\n\v\f\r"
#: Ruby's String#strip also removes NUL characters.
_RUBY_STRIP = _RUBY_SPACE + "\0"
# Ruby's /i does not fold the dotless and dotted I (U+0131, U+0130) to i, and Python's
# would: the i of choice is matched case-sensitively.
_HEAD = re.compile(r"[ \t\n\v\f\r]*S?cho(?-i:[iI])ce([0-9]*)(\(|\[|[ \t\n\v\f\r]+)?", re.IGNORECASE)
_SPACE_RUN = re.compile(r"[ \t\n\v\f\r]+")
# Ruby's ^ and $ are line anchors, and match searches: a range on any line counts.
_NUMBER_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$", re.MULTILINE)
_LOWER_RANGE = re.compile(r"^([a-z])-([a-z])$", re.MULTILINE)
_UPPER_RANGE = re.compile(r"^([A-Z])-([A-Z])$", re.MULTILINE)

_TOO_MANY_TEXT: Final = {
    "ja": f"項目数は{MAX_ITEMS}以下としてください",
    "en": f"a choice may list at most {MAX_ITEMS} items",
}


class ChoiceDetail(Detail):
    """The structure of a choice."""

    kind: Literal["choice"] = "choice"
    style: ChoiceStyle
    #: How many different items were to be picked.
    takes: int = 1
    #: The items after stripping and range expansion (empty when there were too many).
    items: tuple[str, ...] = ()
    item_count: int = 0
    #: The picks in order; None where an injected die pointed past the list.
    chosen: tuple[str | None, ...] = ()
    error: Literal["too_many_items"] | None = None


def render_choice(detail: ChoiceDetail, locale: Locale) -> str:
    """The text of a choice in ``locale``."""
    if detail.error is not None:
        return _TOO_MANY_TEXT[locale]
    takes = "" if detail.takes == 1 else str(detail.takes)
    if detail.style == "space":
        expression = f"choice{takes} {' '.join(detail.items)}"
        separator = " "
    elif detail.style == "bracket":
        expression = f"choice{takes}[{','.join(detail.items)}]"
        separator = ", "
    else:
        expression = f"choice{takes}({','.join(detail.items)})"
        separator = ", "
    chosen = separator.join("" if item is None else item for item in detail.chosen)
    return f"({expression}) ＞ {chosen}"


class _Range:
    """A range item not yet spelled out (it may be far too long to spell out)."""

    def __init__(self, first: int, last: int, letters: bool) -> None:
        self.first = first
        self.last = last
        self.letters = letters

    @property
    def size(self) -> int:
        # Not __len__: len() cannot return a number past sys.maxsize, and this can be one.
        return self.last - self.first + 1

    def items(self) -> list[str]:
        return [chr(code) if self.letters else str(code) for code in range(self.first, self.last + 1)]


def _expand(item: str) -> _Range | None:
    match = _NUMBER_RANGE.search(item)
    if match:
        first, last = int(match.group(1)), int(match.group(2))
        return _Range(first, last, False) if first <= last else None
    match = _LOWER_RANGE.search(item) or _UPPER_RANGE.search(item)
    if match:
        first, last = ord(match.group(1)), ord(match.group(2))
        return _Range(first, last, True) if first <= last else None
    return None


def parse_choice(command: str) -> tuple[ChoiceStyle, int, list[str] | _Range] | None:
    """Read a choice: its style, the number of picks and the items; None if not one."""
    head = _HEAD.match(command)
    if head is None or head.group(2) is None:
        return None
    takes = int(head.group(1)) if head.group(1) else 1
    if takes == 0:
        return None
    opener = head.group(2)
    rest = command[head.end() :]
    raw: list[str]
    if opener in "([":
        style: ChoiceStyle = "bracket" if opener == "[" else "paren"
        # Ruby scans to every comma first, even past the closing bracket, and only then
        # looks for the bracket in what follows the last comma.
        *raw, last = rest.split(",")
        closer = last.find("]" if style == "bracket" else ")")
        if closer < 0:
            return None
        raw.append(last[:closer])
    else:
        style = "space"
        raw = _SPACE_RUN.split(rest)
        # The last item ends at the end of its line; the lines after it are ignored.
        raw[-1] = raw[-1].split("\n", 1)[0]
    items = [stripped for stripped in (item.strip(_RUBY_STRIP) for item in raw) if stripped]
    chosen_from: list[str] | _Range = items
    count = len(items)
    if count == 1:
        expanded = _expand(items[0])
        if expanded is None:
            return None
        chosen_from, count = expanded, expanded.size
    if count == 0 or count < takes:
        return None
    return style, takes, chosen_from


#: The cheap test of the engine before :func:`choice` runs (matched at the line's start).
PREFIX = LINE_HEAD + "choice"


def choice(command: str, ctx: RollContext) -> Outcome | None:
    """Evaluate ``choice[...]``, ``choice(...)`` or ``choice ...``; None if not one.

    ``command`` is the chat line as typed; the whole of it is read.
    """
    parsed = parse_choice(command)
    if parsed is None:
        return None
    style, takes, listed = parsed
    count = listed.size if isinstance(listed, _Range) else len(listed)
    if count > MAX_ITEMS:
        detail = construct(ChoiceDetail, style=style, takes=takes, item_count=count, error="too_many_items")
        ctx.extras[SECRET_FLAG] = False  # BCDice's message is a plain Result: never secret
        return build_outcome(detail, render_choice(detail, ctx.locale))
    items = listed.items() if isinstance(listed, _Range) else listed
    remaining = list(items)
    chosen: list[str | None] = []
    ctx.reserve_dice(takes)
    roll = ctx.source.roll
    for _ in range(takes):
        index = roll(len(remaining)) - 1
        # As Ruby's Array#delete_at: negative indexes count from the end, others miss.
        if -len(remaining) <= index < len(remaining):
            chosen.append(remaining.pop(index))
        else:
            chosen.append(None)
    detail = construct(
        ChoiceDetail, style=style, takes=takes, items=tuple(items), item_count=count, chosen=tuple(chosen)
    )
    return build_outcome(detail, render_choice(detail, ctx.locale))
