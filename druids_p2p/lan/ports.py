"""The LAN's well-known port, apart from the beacon code that uses it: a command's option defaults
name it, and ``druids --help`` should not load the network and crypto stack to print a number."""

from __future__ import annotations

DEFAULT_PORT = 47650
"""The UDP port a host's beacons go to and a listener hears (``--beacon-port``'s default)."""
