"""AIWolf (人狼知能): its agents at our tables, our personas at its servers, its logs.

* :mod:`.protocol`: the packets built from one seat's own observation, the answers read back;
* :mod:`.seat`: :class:`~.seat.AIWolfSeat`, the decision source of a seat an agent plays;
* :mod:`.whisper`: :class:`~.whisper.WhisperChannel`, the 人狼 agents' night whispers;
* :mod:`.auth`: the server's optional token check;
* :mod:`.host`: :class:`~.host.AIWolfHost`, the ``/ws`` endpoint of one table;
* :mod:`.export`: a transcript as the AIWolf viewer's game log and as JSON;
* :mod:`.agent`: our personas as AIWolf agents at someone else's server.

docs/aiwolf.md describes how the protocol maps onto our game.
"""
