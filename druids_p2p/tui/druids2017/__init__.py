"""Druids (2017) in the terminal: the table screen, its widgets, prompts and replay viewer. The only
TUI package that imports ``druids_p2p.games.druids2017``; the neutral TUI reaches it through its
spec's ``ui``.
"""
