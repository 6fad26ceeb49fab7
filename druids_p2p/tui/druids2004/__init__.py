"""Druids (2004) in the terminal: its offline table with in-process bots (``session``), the table
screen, its dialogs and place widgets, the app and the replay viewer.

The only TUI package that imports ``druids_p2p.games.druids2004``: the card vocabulary and the
seat's view are presentation it needs. The neutral TUI reaches it through its spec's ``ui``
(``ui.py``).
"""
