"""Druids (2016) in the terminal: the board drawn as a grid (``board.py``), a move chosen on it
square by square (``choice.py``), the table against a bot (``session.py``, ``table.py`` with its
app and dialogs), the table of peers (``lan_table.py``, whose :data:`UI` the spec names) and
screenshots."""
