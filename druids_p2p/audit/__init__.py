"""The offline audit: ``druids audit`` and ``druids replay`` re-check a game record from its signed
messages alone, through the same checks the table made."""

from druids_p2p import table as _table  # registers the card table's bodies, as importing net did

__all__: list[str] = []
del _table
