"""Whatever a model writes reaches the player's terminal as text, never as terminal commands.

The games run in a pseudo-terminal against the fake server, whose every speech, vote reason,
narrator line and GM narration holds escape sequences (clear the screen, move the cursor,
set the window title, the one-byte CSI, a right-to-left override) and rich markup; the raw
bytes the terminal receives must hold none of them.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from gm_engine.llm.fakeserver import FakeChatServer, FakeReply
from gm_engine.safe_text import printable
from gm_engine.sessions.werewolf_offline import first_choice_calls
from tests.pty_run import PtyRun

#: A hostile model's line: clear screen, cursor home, a fake ending, a window title, the
#: one-byte CSI, a right-to-left override, a carriage return, rich markup and a link.
HOSTILE = (
    "\x1b[2J\x1b[H【ゲーム終了】\x1b]0;pwned\x07\x9b31m\u202eevil\r"
    "[bold red]太字[/bold red][link=https://evil.example]x[/link]"
)


def hostile(body: dict[str, Any]) -> FakeReply:
    tools = body.get("tools") or []
    if not tools:
        return FakeReply.text(HOSTILE)
    return FakeReply.tool_calls(*first_choice_calls(tools, text=HOSTILE))


def server_env(server: FakeChatServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k", "GM_MODEL": "fake"}


def assert_nothing_of_the_model_acts(output: bytes) -> str:
    """No escape sequence, C1 control or bidi override from the model; returns the text."""
    for raw in (b"\x1b[2J", b"\x1b[H", b"\x1b]", b"\x07", "\x9b".encode(), "\u202e".encode(), b"\r["):
        assert raw not in output, raw
    text = output.decode("utf-8")
    assert "␛[2J␛[H【ゲーム終了】␛]0;pwned␇<U+009B>31m<U+202E>evil" in text  # shown, not obeyed
    return text


def test_plain_werewolf_output_holds_no_escape_from_the_model() -> None:
    with FakeChatServer(responder=hostile) as server:
        run = PtyRun(
            ["werewolf", "play", "--auto", "--plain", "--backend", "openai", "--seed", "7", "--no-record"],
            server_env(server),
        )
        code, output = run.finish()
    assert code == 0, output[-2000:]
    # --plain: no escape at all, the engine's own lines included
    assert b"\x1b" not in output
    text = assert_nothing_of_the_model_acts(output)
    assert "[bold red]太字[/bold red][link=https://evil.example]x[/link]" in text
    assert "の勝利" in text


def test_rich_werewolf_output_holds_only_its_own_colours() -> None:
    with FakeChatServer(responder=hostile) as server:
        run = PtyRun(
            ["werewolf", "play", "--auto", "--backend", "openai", "--seed", "7", "--no-record"],
            server_env(server),
        )
        code, output = run.finish()
    assert code == 0, output[-2000:]
    colours = re.compile(rb"\x1b\[[0-9;]*m")
    assert colours.search(output), "rich did not colour: the pseudo-terminal was not seen as one"
    # what is left once rich's own colour codes are taken out holds no escape at all
    assert b"\x1b" not in colours.sub(b"", output)
    text = assert_nothing_of_the_model_acts(colours.sub(b"", output))
    # markup in the model's text is shown, not applied (no link, no style from it)
    assert "[bold red]太字[/bold red][link=https://evil.example]x[/link]" in text


def test_adventure_narration_holds_no_escape_from_the_model(tmp_path: Path) -> None:
    script = tmp_path / "lines.txt"
    script.write_text("森へ行く\n", encoding="utf-8")
    with FakeChatServer(responder=lambda body: FakeReply.text(HOSTILE)) as server:
        run = PtyRun(
            ["adventure", "--scenario", "none", "--backend", "openai", "--no-record", "--max-turns", "2",
             "--script", str(script)],
            server_env(server),
        )
        code, output = run.finish()
    assert code == 0, output[-2000:]
    assert b"\x1b" not in output
    text = assert_nothing_of_the_model_acts(output)
    assert "GM: ␛[2J" in text


# ------------------------------------------------ the function itself


def test_printable_keeps_japanese_and_newlines() -> None:
    text = "こんにちは、世界！　（全角）「テスト」…〜\n二行目\tタブ 👨‍👩‍👧 ｱｲｳ"
    assert printable(text) == text
    assert printable("一行目\n二行目", newlines=False) == "一行目␤二行目"


def test_printable_covers_every_control_format_and_separator_character() -> None:
    kept = {"\t", "\n", "\u200c", "\u200d"}
    for code in range(0x110000):
        char = chr(code)
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs") and char not in kept:
            shown = printable(char)
            assert shown != char, f"U+{code:04X} passes through"
            assert all(unicodedata.category(c) not in ("Cc", "Cf", "Cs") for c in shown)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("\x1b[31m", "␛[31m"), ("\r", "␍"), ("\x7f", "␡"), ("\x9b", "<U+009B>"), ("\u202e", "<U+202E>"),
     ("\udcff", "<U+DCFF>")],
)
def test_printable_shows_what_it_disarms(raw: str, shown: str) -> None:
    assert printable(f"a{raw}b") == f"a{shown}b"
