"""Game sessions that a model runs: werewolf against the personas, the solo adventure,
and a plain roll session. Each kind registers a runner in :mod:`gm_engine.sessions.base`."""
