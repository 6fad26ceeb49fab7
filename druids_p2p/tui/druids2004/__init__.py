"""Druids (2004) in the terminal: its offline table, table screens, dialogs and replay viewer. The
only TUI package that imports ``druids_p2p.games.druids2004``; the neutral TUI reaches it through
its spec's ``ui``.
"""
