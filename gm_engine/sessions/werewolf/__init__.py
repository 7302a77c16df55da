"""The werewolf session: the human at P1 against the eight AI personas (``gm werewolf play``).

The rules engine (:class:`gm_engine.werewolf.Game`) drives the game; this package only asks
the players. Its modules, one job each:

* :mod:`.facts`: the texts built from views (prompt facts, tables, P1's screen lines);
* :mod:`.commands`: what the human types (discussion commands, the quit words);
* :mod:`.seat`: the human's seat, every question P1 is asked (help, /log, /votes, targets by
  name, the confirmation of an unsure reading);
* :mod:`.sinks`: the event plumbing (a concurrent turn's buffer, the counting sink);
* :mod:`.session`: the loop, :class:`WerewolfSession`, and the registered runner.

The tools and their mapping to engine actions are :mod:`gm_engine.tools.werewolf`'s.

Each persona's turn is one model request rendered from that persona's data, its own notes,
the public view and its own private view (never anything else), offering the tools that
are legal now with their choices narrowed to enums. The GM narrator and the human's screen
are rendered from the public view and P1's own private view only.

Flow (see :mod:`gm_engine.werewolf` for the engine's stages):

* 役職選択: ``options.role``, else the human chooses (or ``options.deal`` fixes every role);
* discussion: turns one at a time in the engine's order (speech, claim, CO要求, answers);
* votes and night actions: every persona's request runs concurrently (``asyncio.gather``);
  nobody sees another's choice, and the choices are applied in seat order afterwards;
* the fixed texts (【投票結果】, 【〇〇が退席しました】, 【公開情報】, 【ゲーム終了】), rendered by
  :mod:`gm_engine.werewolf.render` from P1's own view, go to the human's screen as the engine
  produces them.

Events (:mod:`gm_engine.sessions.base`): ``model_request``/``model_response``/
``tool_result``/``fallback`` per model turn, ``human_input`` per answer of the human,
``dice`` after the deal, ``state`` (the engine's state hash) after every engine step.
Turns that run concurrently buffer their events and emit them in seat order, so the
event stream is a deterministic function of the spec, the model's responses and the
human's inputs.

Prompts stay bounded as days pass: earlier days are summarised in one line each (claims,
results, votes, departures); only today's discussion is given in full.

Choices where the rules leave the table free (each a session option or a documented default):

* the human is called ``プレイヤー`` at the table (``human_name``; never a persona's name);
* the GM narrator adds one short line at the start and each morning, from public facts only,
  concurrently with the first turn so it costs no wall time (``narrator=False`` drops it);
* a persona's notes are replaced whole by ``update_notes``; more than five lines is refused
  (an error the model can fix), never silently cut; it is offered with a discussion turn and
  a vote, where a persona forms its view, and not with a CO要求 answer or a night choice
  (whose prompts it would cost its schema for notes the next speech writes anyway);
* a turn the model cannot finish (retry budget spent, or no action at all) is played by a
  separate offline agent of that seat and recorded as a ``fallback`` event;
* a backend failure (:class:`~gm_engine.llm.base.BackendError`, a transient one included once
  the retry policy gave up) is the program's problem, not the model's: the session stops and
  raises it, with nothing of the unfinished step applied (a concurrent round applies its
  choices only once all are in), so a recorded game is left resumable (``gm resume``);
* ``/quit`` at any question stops the session without revealing any role (nor the seed):
  the transcript is left resumable.
"""

from gm_engine.sessions.werewolf.commands import HUMAN_HELP, QUIT_WORDS, claim_command, parse_discussion
from gm_engine.sessions.werewolf.facts import (
    ABILITY_LABELS,
    day_summary,
    fact_lines,
    narrator_prompt,
    persona_system_prompt,
    persona_task_prompt,
    persona_vars,
    private_screen_lines,
    public_info,
    table_vars,
    today_line,
    who,
)
from gm_engine.sessions.werewolf.seat import HumanQuit, HumanSeat
from gm_engine.sessions.werewolf.session import (
    WerewolfSession,
    WerewolfSessionOptions,
    play_werewolf,
    run_werewolf,
    session_options,
)
from gm_engine.sessions.werewolf.sinks import BufferSink, SessionFigures

__all__ = [
    "ABILITY_LABELS",
    "HUMAN_HELP",
    "QUIT_WORDS",
    "BufferSink",
    "HumanQuit",
    "HumanSeat",
    "SessionFigures",
    "WerewolfSession",
    "WerewolfSessionOptions",
    "claim_command",
    "day_summary",
    "fact_lines",
    "narrator_prompt",
    "parse_discussion",
    "persona_system_prompt",
    "persona_task_prompt",
    "persona_vars",
    "play_werewolf",
    "private_screen_lines",
    "public_info",
    "run_werewolf",
    "session_options",
    "table_vars",
    "today_line",
    "who",
]
