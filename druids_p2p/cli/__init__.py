"""The ``druids`` command line. Each command lives in its own module and registers on ``app``."""
