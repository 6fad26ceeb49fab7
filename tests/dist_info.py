"""Installed-package metadata made by hand, so that entry points can be tested without pip.

The game registry reads only entry points (``druids_p2p.games``). A ``NAME-VERSION.dist-info``
folder with ``METADATA`` and ``entry_points.txt`` on ``sys.path`` is an installed distribution to
``importlib.metadata``; one named ``druids_p2p`` earlier on the path than the editable install
shadows it (distributions are found by name, first on the path first), which is how a checkout
whose pyproject.toml gained entry points runs before ``pip install -e .`` is run again::

    PYTHONPATH=$PWD:$(python3 tests/dist_info.py /tmp/meta) python3 -m druids_p2p ...

Tests use :func:`write_dist_info` to install a game plugin (a third party's, a broken one) into
a temporary folder for this process and the peer processes it starts.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EntryPoints = Mapping[str, Mapping[str, str]]
"""``{group: {name: "module:attr"}}``."""


def write_dist_info(folder: Path, name: str, entry_points: EntryPoints, version: str = "0") -> Path:
    """A distribution ``name`` with ``entry_points`` in ``folder`` (put ``folder`` on the path);
    its ``.dist-info`` folder."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines: list[str] = []
    for group, points in entry_points.items():
        lines.append(f"[{group}]")
        lines.extend(f"{ep} = {value}" for ep, value in points.items())
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
    return info


def project_entry_points(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, dict[str, str]]:
    """The entry points a checkout's pyproject.toml declares (its scripts as
    ``console_scripts``)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    points = {group: dict(eps) for group, eps in project.get("entry-points", {}).items()}
    if "scripts" in project:
        points["console_scripts"] = dict(project["scripts"])
    return points


def checkout_metadata(folder: Path, pyproject: Path = ROOT / "pyproject.toml") -> Path:
    """The checkout's own distribution, as ``pip install -e .`` would describe it, in ``folder``."""
    project = tomllib.loads(pyproject.read_text())["project"]
    write_dist_info(folder, project["name"], project_entry_points(pyproject), project["version"])
    return folder


@contextmanager
def installed_games(
    folder: Path, games: Mapping[str, str], dist: str = "test-games"
) -> Iterator[Path]:
    """Game plugins ``{name: "module:attr"}`` installed for this process while inside (a
    distribution ``dist`` in ``folder``, put first on ``sys.path``, the registry read again);
    ``folder`` also belongs on the ``PYTHONPATH`` of any process started meanwhile."""
    from druids_p2p.games import registry

    write_dist_info(folder, dist, {registry.GROUP: games})
    sys.path.insert(0, str(folder))
    registry.reload()
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        registry.reload()


if __name__ == "__main__":  # python3 tests/dist_info.py DIR: prints DIR for PYTHONPATH
    print(checkout_metadata(Path(sys.argv[1]).resolve()))
