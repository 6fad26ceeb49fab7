"""druids-p2p: the Druids card game (Amigo, 2017) played peer to peer on a LAN.

Layers, each importing only those before it: ``engine`` (pure rules) -> ``wire`` (identities, signed
envelopes, the game record) -> ``deck`` (the mental-card deal) -> ``lan`` (discovery, lobby, mesh)
-> ``table`` (the table machine) -> ``peer``/``audit`` -> ``cli``/``tui``. ``bots`` and
``tournament`` sit beside, on the engine's interface.
"""

__version__ = "0.1.0"
