"""Suite-wide scheduling for parallel runs (README's command runs ``pytest -n 3``).

With ``--dist loadgroup`` (pyproject's addopts) xdist hands out work units in collection order,
after the ``xdist_group`` groups (largest first). Left in file order, a long real-process test
collected late (the TUI's e2e files sort last) starts when the other worker is already idle and
the run waits for it alone. So on xdist workers the long tiers (``slow``, ``e2e``, ``netns``) are
collected first and the short tests fill the gaps at the end. The order within each tier is the
file order, and a run without ``-n`` keeps the plain file order.

Textual's pilot waits, after every key it presses and every ``pause()``, until the process looks
idle, in slices of ``textual._wait.SLEEP_GRANULARITY`` (20 ms; at least two a key). A whole game by
keys is a few thousand keys, so the UI tests spent about half their time asleep in those slices;
here each slice is 5 ms (the test of idleness itself, under 1 ms of CPU in a slice, is Textual's).
A test that needs a state reached only after several messages waits for that state, not on a
slice's length.

Byte code: a ``druids`` process a test starts imports about 200 of the package's modules. Where
``PYTHONDONTWRITEBYTECODE`` is set (as on the machine the suite is measured on) no process keeps
what it compiled, so each compiled them all from source again: 0.15 s of CPU per process, over a
thousand processes a run. The controller compiles the package once at the start (``compileall``,
into the package's ``__pycache__``, which git ignores); every process then reads it, as each would
have written and read it without the variable.

``tests/support`` is on ``sys.path`` for every test: the UIs and games made only for tests
(``offline2017``, ``highcard``; importing one registers nothing).

Ctrl-C: every pytest process starts the processes of its tests with SIGINT at Python's default
(however the suite was launched), and a test that leaves it changed fails.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

LONG_TIERS = ("slow", "e2e", "netns")
PILOT_IDLE_SLICE_S = 0.005
"""Textual's idle-wait slice in the UI tests (module docstring; Textual's own: 1/50 s)."""

SUPPORT = str(Path(__file__).resolve().parent / "support")
if SUPPORT not in sys.path:
    sys.path.append(SUPPORT)


def _is_long(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(name) is not None for name in LONG_TIERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tiers first on xdist workers (every worker sorts alike: the collections must match)."""
    if not hasattr(config, "workerinput"):
        return
    items.sort(key=lambda item: not _is_long(item))  # stable: file order within each tier


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C handled as Python's default in this pytest process, for the processes it starts.

    A shell without job control (a script, ``sh -c``, a CI step) starts a background job
    (``cmd &``) with SIGINT ignored, as POSIX has it, and a Python started with SIGINT ignored
    keeps it ignored. So a suite run that way passes the ignore on to its xdist workers and
    from them to every ``druids`` process a test starts, and the Ctrl-C tests (a real process
    sent SIGINT) see their command play on to its end. That is the launcher's disposition, not
    the suite's, so each pytest process (the controller here, which starts the workers, and
    each worker) puts Python's default back once at its start. (``timeout CMD`` hides it: it
    handles SIGINT itself, so CMD starts with it at the default.) Also Textual's idle-wait
    slice for the UI tests, and the package's byte code, compiled once by the controller
    (module docstring)."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not hasattr(config, "workerinput"):
        _compile_package()
    import textual._wait

    textual._wait.SLEEP_GRANULARITY = PILOT_IDLE_SLICE_S


def _compile_package() -> None:
    """The package's byte code, up to date (a module compiled since is skipped; a read-only tree
    is left as it is: its processes compile as before)."""
    import compileall

    import druids_p2p

    compileall.compile_dir(Path(druids_p2p.__file__).parent, quiet=2)


@pytest.fixture(autouse=True)
def _ctrl_c_left_as_found() -> Iterator[None]:
    """A test that leaves SIGINT changed fails, by name: the processes the later tests on its
    worker start would inherit the change (an ignored SIGINT makes the Ctrl-C tests' commands
    play on). It is put back, so that only the test that changed it fails."""
    yield
    handler = signal.getsignal(signal.SIGINT)
    if handler is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        pytest.fail(f"the test left SIGINT as {handler!r}, not Python's default", pytrace=False)
