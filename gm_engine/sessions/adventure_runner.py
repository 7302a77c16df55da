"""The registered runner of every adventure session: the free-form
:class:`~gm_engine.sessions.adventure.Adventure`, or a scenario's
:class:`~gm_engine.sessions.adventure_scenario.ScenarioAdventure` when ``options.scenario``
names one. A module of its own so that neither of the two imports the other back, and so that
a fight loads none of the scenario code.
"""

from __future__ import annotations

from gm_engine.sessions.adventure import Adventure, adventure_options
from gm_engine.sessions.base import SessionIO, SessionOutcome, SessionSpec, register_session
from gm_engine.sessions.interrupt import run_interruptibly


@register_session("adventure")
def run_adventure(spec: SessionSpec, io: SessionIO) -> SessionOutcome:
    """Run a solo adventure: through ``options.scenario`` when given
    (:class:`~gm_engine.sessions.adventure_scenario.ScenarioAdventure`, imported only then: a
    fight replays without the scenarios' models), else the free-form :class:`Adventure`.

    Raises:
        SessionError: the options are invalid (an unknown dice system or scenario).
    """
    options = adventure_options(spec)
    adventure: Adventure
    if options.scenario is not None:
        from gm_engine.sessions.adventure_scenario import ScenarioAdventure

        adventure = ScenarioAdventure(spec, io, options)
    else:
        adventure = Adventure(spec, io, options)
    return run_interruptibly(adventure.run())
