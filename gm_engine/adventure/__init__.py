"""Scenario play for the solo adventure: scenarios as data (:mod:`.scenario`), the story in
play (:mod:`.story`), the player's words as intents (:mod:`.intent`), character creation
(:mod:`.creation`), the offline GM (:mod:`.offline_gm`), the GM-only brief (:mod:`.brief`)
and the narration guard (:mod:`.guard`)."""
