"""Run the ``gm`` command in a pseudo-terminal and read the raw bytes it writes there.

What a player's terminal would receive, byte for byte: rich sees a terminal (and colours),
``input()`` reads through the terminal's line discipline. The time limits only keep a
broken test from hanging; nothing is measured.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

#: The command line of ``gm`` with this interpreter.
GM = [sys.executable, "-c", "import sys; from gm_engine.cli import main; sys.exit(main(sys.argv[1:]))"]


class PtyRun:
    """``gm ARGS`` on a pseudo-terminal (its stdin, stdout and stderr)."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        master, slave = os.openpty()
        full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        for key in ("NO_COLOR", "FORCE_COLOR", "PYTHONIOENCODING"):
            full_env.pop(key, None)
        full_env.update(env or {})
        self.process = subprocess.Popen(
            [*GM, *args], stdin=slave, stdout=slave, stderr=slave, env=full_env, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.output = bytearray()

    def _read(self, wait_s: float) -> bool:
        """Read what is there within ``wait_s``; False once the terminal is closed."""
        ready, _, _ = select.select([self.master], [], [], wait_s)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every process holding the terminal is gone
            return False
        if not data:
            return False
        self.output.extend(data)
        return True

    def read_until(self, marker: bytes, *, start: int = 0, limit_s: float = 120.0) -> int:
        """Read until ``marker`` appears at or after ``start``; its offset in the output.

        Raises:
            AssertionError: the program ended or the limit passed first.
        """
        end = time.monotonic() + limit_s
        while True:
            found = self.output.find(marker, start)
            if found >= 0:
                return found
            if time.monotonic() > end or not self._read(0.2):
                tail = bytes(self.output[-2000:]).decode("utf-8", "replace")
                raise AssertionError(f"{marker!r} never came; the terminal's last output:\n{tail}")

    def wait_reading(self, *, limit_s: float = 60.0) -> None:
        """Wait until the program sits in a read of its standard input with its main thread
        asleep in a system call (a prompt is really waiting), so that a signal sent next is
        not lost in the instant between a prompt being written and the read starting (the
        kernel would deliver it before the read, and the read would then wait forever).

        Raises:
            AssertionError: the limit passed first.
        """
        end = time.monotonic() + limit_s
        tasks = Path(f"/proc/{self.process.pid}/task")
        while time.monotonic() < end:
            calls: dict[str, str] = {}
            for task in tasks.glob("*"):
                try:
                    calls[task.name] = (task / "syscall").read_text()
                except OSError:
                    continue
            main = calls.get(str(self.process.pid), "running")
            reading = any(call.startswith("0 0x0 ") for call in calls.values())
            if reading and not main.startswith("running"):
                return
            time.sleep(0.02)
        raise AssertionError("the program never sat waiting for input")

    def next_prompt(self, start: int) -> tuple[str, int]:
        """Wait for the next question at or after ``start`` (a line ending in ``> ``, the
        werewolf seat's prompt): its text and where the output after it starts."""
        end = self.read_until(b"\n> ", start=start)
        line_start = self.output.rfind(b"\n", 0, end) + 1
        return bytes(self.output[line_start:end]).decode("utf-8", "replace"), end + 3

    def send(self, data: bytes) -> None:
        """Type ``data`` at the terminal."""
        os.write(self.master, data)

    def finish(self, *, limit_s: float = 300.0) -> tuple[int, bytes]:
        """Read to the end; the exit status and everything the terminal received."""
        end = time.monotonic() + limit_s
        while time.monotonic() < end and self._read(0.2):
            pass
        try:
            code = self.process.wait(timeout=max(1.0, end - time.monotonic()))
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            os.close(self.master)
        return code, bytes(self.output)

    def play_to_the_end(
        self,
        answer: Callable[[str, str], str],
        *,
        interrupt_at: Callable[[str], bool] | None = None,
        replayed: int = 0,
        interrupt_limit_s: float = 10.0,
    ) -> tuple[int, bytes]:
        """Answer every question with ``answer(prompt, screen since the last answer)`` to
        the end, or press Ctrl-C at the first prompt ``interrupt_at`` accepts; the first
        ``replayed`` questions (a resumed game's recorded ones, shown with their answers)
        are passed over. The exit status and everything the terminal received."""
        seen = 0
        for _ in range(replayed):
            _, seen = self.next_prompt(seen)
        while True:
            try:
                prompt, after = self.next_prompt(seen)
            except AssertionError:  # the game ended: no more questions
                return self.finish(limit_s=120)
            if interrupt_at is not None and interrupt_at(prompt):
                self.wait_reading()
                os.kill(self.process.pid, signal.SIGINT)
                return self.finish(limit_s=interrupt_limit_s)
            screen = bytes(self.output[seen:after]).decode("utf-8", "replace")
            self.send((answer(prompt, screen) + "\n").encode())
            seen = after
