"""druids-p2p: card games (Druids 2017, 2004, 2016) played peer to peer on a LAN, on one mental card
table. README's layout section names the packages and the import contracts that order them.
"""

__version__ = "0.1.0"
