"""The games: each rule set a pure engine in its own package, and the seam they all meet.

``seam`` holds the protocols every runner (network, bots, tournaments, audit) talks to; each game
package (``druids2017``, ``druids2004``) imports only the standard library and the seam, never the
other game, and is registered by name in ``druids_p2p.rulesets``.
"""
