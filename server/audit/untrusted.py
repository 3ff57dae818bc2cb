"""Reading a file from a stranger: JSON parsed within `Limits` (size, nesting, number
length, containers, duplicate keys, UTF-8) before anything else looks at it, and values
quoted in messages short and on one line (`show`, `one_line`). What does not fit is
`Unreadable`: neither ok nor a difference (RECORD.md)."""

from __future__ import annotations

import codecs
import gc
import json
import math
import re
import reprlib
from dataclasses import dataclass
from typing import Any


class Unreadable(Exception):
    """Not a record or bundle at all."""


MiB = 2**20


@dataclass(frozen=True)
class Limits:
    """What the verifier reads at most (docs/RECORDS.md, "Hostile files and the bounds"):
    past any of these a file is unreadable (absurd sizes, RECORD.md); time and memory
    are bounded by them.

    At the defaults a real bundle of 60 MiB (about 700,000 actions) verifies in about
    12 s with a peak of 10 times its size, a record of a million actions in about 10 s
    and 11 times; no file takes more than about 22 times the size cap (1.4 GB)."""

    max_bytes: int = 64 * MiB  # the file
    max_depth: int = 32  # arrays and objects inside each other (a bundle needs 6)
    max_number_chars: int = 40  # one JSON number, sign and exponent included
    max_containers: int = 4_000_000  # arrays and objects in the file (3 per Gaps move)
    max_records: int = 100_000  # records in a bundle
    max_actions: int = 1_000_000  # actions in a record, or steps in a stored solution


LIMITS = Limits()

_show = reprlib.Repr()
_show.maxstring = 80
_show.maxother = 80
_show.maxlong = 44
_show.maxlevel = 3
_show.maxdict = _show.maxlist = _show.maxtuple = 4


def show(value: Any) -> str:
    """`value` as it may appear in a message: a repr cut short, depth and length bounded,
    so a hostile file cannot make a message long, deep or more than one line."""
    return _show.repr(value)


class _Refused(Exception):
    """Raised from the JSON parser's hooks: the text is JSON, but not one we read."""


_BOM = codecs.BOM_UTF8
_BLANK = re.compile(rb"[ \t\r\n]*")
_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def parse_json(raw: bytes, limits: Limits = LIMITS) -> Any:
    """The JSON document in `raw`, or Unreadable saying in one line why the verifier does
    not read it: over `limits`, empty, not UTF-8 (one leading byte order mark is
    skipped), not JSON, NaN or Infinity, a number past max_number_chars or a double's
    range, or an object with a key twice (its meaning would depend on the reader)."""
    if len(raw) > limits.max_bytes:
        raise Unreadable(f"too large: {len(raw):,} bytes, the limit is {limits.max_bytes:,}")
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    if _BLANK.fullmatch(raw):
        raise Unreadable("the file is empty (no JSON in it)")
    _check_structure(raw, limits)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            f"not UTF-8 text: byte {exc.start:,} is {show(raw[exc.start : exc.start + 1])}"
        ) from None
    del raw  # the caller may hand over its only reference: the text is all that is needed
    decoder = json.JSONDecoder(
        object_pairs_hook=_object,
        parse_int=lambda s: int(_number(s, limits)),
        parse_float=lambda s: _float(_number(s, limits)),
        parse_constant=_constant,
    )
    collecting = gc.isenabled()
    gc.disable()  # a parse only adds objects: collecting meanwhile finds nothing to free
    try:
        return decoder.decode(text)
    except _Refused as exc:
        raise Unreadable(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise Unreadable(
            f"not JSON: {exc.msg} at line {exc.lineno:,} column {exc.colno:,}"
        ) from None
    except RecursionError:  # _check_structure bounds nesting well below this
        raise Unreadable(f"nested deeper than {limits.max_depth} levels") from None
    finally:
        if collecting:
            gc.enable()


def _check_structure(raw: bytes, limits: Limits) -> None:
    """Nesting depth and the number of arrays and objects, from the brackets outside
    strings, before anything is built. On text that is not JSON the counts may be off;
    the parser then says what is wrong."""
    brackets = _brackets(raw)
    containers = brackets.count(b"[") + brackets.count(b"{")
    if containers > limits.max_containers:
        raise Unreadable(
            f"too many arrays and objects: {containers:,}, the limit is {limits.max_containers:,}"
        )
    for _ in range(limits.max_depth):  # each round removes the innermost pairs
        if not brackets:
            return
        brackets = _PAIR.sub(b"", brackets)
    if _PAIR.search(brackets):
        raise Unreadable(f"nested deeper than {limits.max_depth} levels")


_SCAN_CHUNK = 1 << 20  # bytes split at quotes at once


def _brackets(raw: bytes) -> bytes:
    """The brackets of `raw` outside its strings, in order: escapes dropped (an escaped
    backslash first, then an escaped quote), then the text between quotes taken a chunk
    at a time, so that no pass holds more than a chunk's pieces (a regex substitution
    over the whole file holds every piece at once: 20 times the file)."""
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    out: list[bytes] = []
    inside = False
    for start in range(0, len(raw), _SCAN_CHUNK):
        parts = raw[start : start + _SCAN_CHUNK].split(b'"')
        out.append(b"".join(parts[1 if inside else 0 :: 2]).translate(None, _NOT_BRACKETS))
        inside ^= len(parts) % 2 == 0  # an odd number of quotes in the chunk
    return b"".join(out)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"an object has the key {show(key)} twice")
            seen.add(key)
    return obj


def _number(text: str, limits: Limits) -> str:
    if len(text) > limits.max_number_chars:
        raise _Refused(
            f"a number of {len(text):,} characters (at most {limits.max_number_chars}): "
            f"{show(text)}"
        )
    return text


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"a number beyond a double's range: {show(text)}")
    return value


def _constant(text: str) -> Any:
    raise _Refused(f"{text} is not a JSON number")


def one_line(text: str, limit: int = 300) -> str:
    """`text` as one printable line of at most about `limit` characters: control and
    other unprintable characters escaped, the rest cut off with an ellipsis."""
    cut = text[: limit + 1]
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)
    if len(line) > limit or len(text) > len(cut):
        line = line[:limit] + "…"
    return line
