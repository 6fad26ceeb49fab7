"""The games: each a package of its own, the seam they all meet at, the spec each hands the registry
through its entry point, and the registry. A game imports only the standard library, the seam and
the spec, never another game (an import-linter contract; docs/games.md).
"""
