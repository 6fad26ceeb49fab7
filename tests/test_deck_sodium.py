"""How a druids process loads libsodium: rbcl ships it as a hex string its import writes to a new
temporary file, never removed (2.7 MB a process; the suite starts about a thousand). Loaded from
a per-user cache instead, written once; where that cannot be, rbcl's file is unlinked once loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from druids_p2p.deck import group, sodium

ROOT = Path(__file__).resolve().parent.parent

BASE_HEX = "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76"
TWO_B_HEX = "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919"
"""RFC 9496 Appendix A.1: the encodings of B and 2·B."""

IMPORT = "import druids_p2p.deck.group"
OPERATE = (
    "from druids_p2p.deck import group\n"
    "two = (2).to_bytes(32, 'little')\n"
    "print(group.BASE.hex(), group.mul(two, group.BASE).hex())\n"
    "assert group.is_element(group.hash_to_point(b'tag', 1))\n"
)


def _run(code: str, tmp: Path, cache: Path) -> str:
    """``code`` in a fresh process whose temp folder is ``tmp`` and whose cache home is
    ``cache``; its stdout."""
    env = dict(os.environ, TMPDIR=str(tmp), XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_druids_process_leaves_nothing_in_the_temp_folder(tmp_path: Path) -> None:
    """The first process writes the cache (one file, no stray temporary name beside it), the
    next ones load it; none leaves a file in the temp folder, and the group works."""
    tmp, cache = tmp_path / "tmp", tmp_path / "cache"
    tmp.mkdir()
    for code in (IMPORT, OPERATE, OPERATE):
        out = _run(code, tmp, cache)
        assert sorted(tmp.iterdir()) == []
    assert out.split() == [BASE_HEX, TWO_B_HEX]
    kept = list(cache.rglob("*"))
    assert [p.suffix for p in kept if p.is_file()] == [".so"], kept


def test_a_cache_file_that_is_no_library_is_written_again(tmp_path: Path) -> None:
    """A damaged cache (a truncated copy, say) is not loaded: the next process writes it anew,
    and still leaves nothing in the temp folder."""
    tmp, cache = tmp_path / "tmp", tmp_path / "cache"
    tmp.mkdir()
    _run(IMPORT, tmp, cache)
    (kept,) = (p for p in cache.rglob("*") if p.is_file())
    size = kept.stat().st_size
    kept.write_bytes(b"\x7fELF not a library")
    out = _run(OPERATE, tmp, cache)
    assert out.split() == [BASE_HEX, TWO_B_HEX]
    assert sorted(tmp.iterdir()) == [] and kept.stat().st_size == size


def test_without_a_writable_cache_the_process_still_leaves_nothing(tmp_path: Path) -> None:
    """The cache home is a file, so no folder can be made under it (root ignores permission
    bits, a file does not): libsodium is loaded as rbcl loads it, and rbcl's file removed."""
    tmp, cache = tmp_path / "tmp", tmp_path / "not-a-folder"
    tmp.mkdir()
    cache.write_text("")
    for code in (IMPORT, OPERATE):
        out = _run(code, tmp, cache)
        assert sorted(tmp.iterdir()) == []
    assert out.split() == [BASE_HEX, TWO_B_HEX]


def test_from_hash_is_libsodiums_one_way_map() -> None:
    """``from_hash`` takes exactly 64 bytes (RFC 9496 §4.3.4) and gives a valid element; the
    generator is libsodium's."""
    assert sodium.scalarmult_base(group.ONE) == group.BASE
    point = sodium.from_hash(bytes(range(64)))
    assert group.is_element(point)
    assert point != sodium.from_hash(bytes(range(1, 65)))
    for bad in (bytes(63), bytes(65)):
        with pytest.raises(ValueError, match="64 bytes"):
            sodium.from_hash(bad)
