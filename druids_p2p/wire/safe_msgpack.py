"""Bounded msgpack parsing for bytes from untrusted peers.

``msgpack.unpackb`` alone does not give us what we need: it decodes the timestamp extension without
calling ``ext_hook``, silently keeps the last of duplicate map keys, recurses up to its own stack
limit, and reports problems through several exception types. So the bytes are first walked by an
iterative scanner that knows only msgpack headers (bounded work and depth, no allocation per item,
precise offsets in errors), and only then handed to the C unpacker with tight limits.
"""

from __future__ import annotations

from typing import Any

import msgpack

from druids_p2p.wire.msgtypes import Malformed

# Header byte -> size of the big-endian length/count that follows it.
_STR_LEN = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN_LEN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY_LEN = {0xDC: 2, 0xDD: 4}
_MAP_LEN = {0xDE: 2, 0xDF: 4}
# Header byte -> number of payload bytes of a fixed-size scalar.
_FIXED = {
    0xCA: 4,  # float 32
    0xCB: 8,  # float 64
    0xCC: 1,
    0xCD: 2,
    0xCE: 4,
    0xCF: 8,  # uint 8..64
    0xD0: 1,
    0xD1: 2,
    0xD2: 4,
    0xD3: 8,  # int 8..64
}
_EXT = frozenset({0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8})


class _DuplicateKey(Exception):
    pass


def _read_len(data: bytes, pos: int, width: int) -> int:
    if pos + width > len(data):
        raise Malformed(f"truncated length field at offset {pos}")
    return int.from_bytes(data[pos : pos + width], "big")


def scan(data: bytes, max_depth: int) -> None:
    """Check that ``data`` is exactly one well-formed msgpack object without ext types.

    Every declared length is compared with the bytes that remain, so a header claiming four
    billion items is refused at once instead of being trusted by a later stage.
    """
    n = len(data)
    pos = 0
    remaining = [1]  # items still expected in each open container; the bottom is the top level
    while remaining:
        if remaining[-1] == 0:
            remaining.pop()
            continue
        remaining[-1] -= 1
        if pos >= n:
            raise Malformed(f"truncated: object expected at offset {pos}, input ends")
        start = pos
        b = data[pos]
        pos += 1
        count = -1
        skip = 0
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            continue  # fixint, negative fixint, nil, false, true
        if b == 0xC4:  # bin 8, first: a deck message is mostly 32-byte points
            if pos >= n:
                raise Malformed(f"truncated length field at offset {pos}")
            skip = data[pos]
            pos += 1
        elif 0x80 <= b <= 0x8F:
            count = 2 * (b & 0x0F)
        elif 0x90 <= b <= 0x9F:
            count = b & 0x0F
        elif 0xA0 <= b <= 0xBF:
            skip = b & 0x1F
        elif b in _STR_LEN:
            skip = _read_len(data, pos, _STR_LEN[b])
            pos += _STR_LEN[b]
        elif b in _BIN_LEN:
            skip = _read_len(data, pos, _BIN_LEN[b])
            pos += _BIN_LEN[b]
        elif b in _ARRAY_LEN:
            count = _read_len(data, pos, _ARRAY_LEN[b])
            pos += _ARRAY_LEN[b]
        elif b in _MAP_LEN:
            count = 2 * _read_len(data, pos, _MAP_LEN[b])
            pos += _MAP_LEN[b]
        elif b in _FIXED:
            skip = _FIXED[b]
        elif b in _EXT:
            raise Malformed(f"msgpack ext type (header 0x{b:02x}) at offset {start} not allowed")
        else:  # 0xC1 is the only byte left: reserved, never used
            raise Malformed(f"invalid msgpack header byte 0x{b:02x} at offset {start}")
        if count >= 0:
            if len(remaining) > max_depth:
                raise Malformed(f"nesting deeper than {max_depth} at offset {start}")
            if count > n - pos:
                raise Malformed(
                    f"container at offset {start} declares {count} items "
                    f"but only {n - pos} bytes remain"
                )
            remaining.append(count)
        else:
            if skip > n - pos:
                raise Malformed(
                    f"value at offset {start} declares {skip} bytes but only {n - pos} remain"
                )
            pos += skip
    if pos != n:
        raise Malformed(f"{n - pos} trailing bytes after the object (offset {pos})")


def _no_ext(code: int, data: bytes) -> Any:
    raise Malformed(f"msgpack ext type {code} not allowed")


def _pairs(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"duplicate map key {key!r}")
            seen.add(key)
    return out


def unpack(data: bytes, max_depth: int) -> Any:
    """Parse one object: arrays become tuples, maps dicts with unique str/bytes keys."""
    scan(data, max_depth)
    n = len(data)
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            use_list=False,
            strict_map_key=True,
            object_pairs_hook=_pairs,
            ext_hook=_no_ext,
            max_str_len=n,
            max_bin_len=n,
            max_array_len=n,
            max_map_len=n,
            max_ext_len=0,
        )
    except Malformed:
        raise
    except _DuplicateKey as exc:
        raise Malformed(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise Malformed(f"string is not valid UTF-8 ({exc.reason})") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise Malformed(f"msgpack: {exc or type(exc).__name__}") from None


def pack(obj: Any) -> bytes:
    """The canonical encoding: shortest headers, bin for bytes, str for text, order as given."""
    out: bytes = msgpack.packb(obj, use_bin_type=True)
    return out


def require_canonical(data: bytes, obj: Any, what: str) -> None:
    """Refuse a second spelling of the same value, so that a message has exactly one hash.

    Without this a relay could re-encode a signed message (say, a longer length header) and make
    an honest sender look like an equivocator, or break every back-link to it.
    """
    again = pack(obj)
    if again != data:
        at = next((i for i, (x, y) in enumerate(zip(again, data, strict=False)) if x != y), None)
        if at is None:
            at = min(len(again), len(data))
        raise Malformed(f"{what}: non-canonical msgpack encoding (first difference at byte {at})")
