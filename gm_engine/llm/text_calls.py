"""Tool calls a model wrote in its text instead of sending them as tool calls.

Small models, and servers whose chat template has no tool support, put a call in the
answer's content in one of a few common shapes:

* Hermes / Qwen tags: ``<tool_call>{"name": "vote", "arguments": {"target": "P3"}}</tool_call>``
  (several in a row; the closing tag may be missing at the end of the answer);
* a fenced code block (```` ```json ````) holding such an object, or a list of them;
* a bare JSON object (or list) in the text.

The object names the tool as ``name`` (or ``tool``, or inside ``function``) and gives
its arguments as ``arguments`` (or ``parameters``, ``args``, ``input``), as an object or
as JSON text. Only objects naming one of the tools offered count, so JSON a persona
quotes in its speech is not taken for a call. :func:`calls_in_text` returns the calls
found, the text left around them, and which shape they had; :func:`how_to_write_a_call`
is what a corrective re-ask says so that a model whose tools did not reach it can still
call one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gm_engine.llm.base import ToolCall, ToolSpec

#: How a call was written: in ``<tool_call>`` tags, in a fenced code block, as bare JSON.
TextCallFormat = Literal["tool_call_tag", "code_block", "json"]

_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")

#: The id prefix of a call read from the text (the model sent none).
TEXT_CALL_ID = "text_call"


@dataclass(frozen=True)
class TextCalls:
    """Calls found in an answer's text: the calls (ids ``text_call_N``), the text left once
    they are taken out (None when nothing is left), and how they were written."""

    calls: tuple[ToolCall, ...]
    remaining: str | None
    format: TextCallFormat


def calls_in_text(text: str | None, tools: frozenset[str] | set[str]) -> TextCalls | None:
    """The calls of ``tools`` written in ``text``, or None when there is none."""
    if not text or not tools:
        return None
    for pattern, kind in ((_TAG, "tool_call_tag"), (_FENCE, "code_block")):
        calls: list[ToolCall] = []
        spans: list[tuple[int, int]] = []
        for match in pattern.finditer(text):
            found = _calls_of(_loads(match.group(1)), tools, len(calls))
            if found:
                calls.extend(found)
                spans.append(match.span())
        if calls:
            return TextCalls(tuple(calls), _without(text, spans), kind)  # type: ignore[arg-type]
    return _bare_json(text, tools)


def _bare_json(text: str, tools: frozenset[str] | set[str]) -> TextCalls | None:
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        found = _calls_of(value, tools, len(calls))
        if found:
            calls.extend(found)
            spans.append((start, end))
        position = end
    if not calls:
        return None
    return TextCalls(tuple(calls), _without(text, spans), "json")


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _calls_of(value: Any, tools: frozenset[str] | set[str], first: int) -> list[ToolCall]:
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        items = value["tool_calls"]
    calls: list[ToolCall] = []
    for item in items:
        call = _call_of(item, tools, first + len(calls))
        if call is None:
            return []  # a list is taken whole or not at all
        calls.append(call)
    return calls


def _call_of(item: Any, tools: frozenset[str] | set[str], index: int) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    inner = item.get("function")
    if isinstance(inner, dict):
        item = inner
    name = item.get("name", item.get("tool"))
    if not isinstance(name, str) or name.strip() not in tools:
        return None
    arguments: Any = next((item[key] for key in _ARGUMENT_KEYS if key in item), None)
    if arguments is None:
        # {"tool": "vote", "target": "P3"}: the arguments beside the name
        arguments = {k: v for k, v in item.items() if k not in ("name", "tool", "type", "id")}
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return ToolCall(id=f"{TEXT_CALL_ID}_{index}", name=name.strip(), arguments=text)


def _without(text: str, spans: list[tuple[int, int]]) -> str | None:
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    left = " ".join(piece.strip() for piece in pieces if piece.strip())
    return left or None


def how_to_write_a_call(specs: Sequence[ToolSpec]) -> str:
    """How to call a tool in the text when the server's tool calls do not reach the model (a
    chat template without tools drops them), then each tool's schema as one JSON line."""
    lines = [
        "If you cannot call tools, write the call in your answer as "
        '<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>, with one of:'
    ]
    lines.extend(
        json.dumps({"name": spec.name, "parameters": spec.parameters}, ensure_ascii=False) for spec in specs
    )
    return "\n".join(lines)
