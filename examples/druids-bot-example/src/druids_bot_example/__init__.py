"""An example Druids bot shipped as its own package (see README.md)."""

from druids_bot_example.bot import LowballBot

__all__ = ["LowballBot"]
__version__ = "0.1.0"
