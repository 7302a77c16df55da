"""``gm serve``: werewolf tables and solo adventures in the browser, and a BCDice-API.

The storage contract every database backend fulfils is :mod:`gm_engine.serve.store`;
the BCDice-API endpoints are :mod:`gm_engine.serve.bcdice_api`.
"""
