"""Druids (2017) in the terminal: the table screen and its widgets (hand, piles, trick, scores),
card drawing, warnings, snapshots of a table, its prompts and summaries, and the replay viewer.

The only TUI package that imports ``druids_p2p.games.druids2017``: the card vocabulary and the
player's view are presentation it needs. The neutral TUI reaches it through its spec's ``ui``
(``ui.py``).
"""
