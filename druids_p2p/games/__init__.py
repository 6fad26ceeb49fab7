"""The games: each one a package of its own, what they all meet at, and the registry.

``seam`` holds the protocols every runner (network, bots, tournaments, audit) talks to; ``spec``
the :class:`~druids_p2p.games.spec.GameSpec` a game hands the registry through its
``druids_p2p.games`` entry point; ``registry`` finds the games by name. Each game package
imports only the standard library, the seam and the spec, never another game (import-linter's
independence contract over ``druids_p2p.games.*``).
"""
