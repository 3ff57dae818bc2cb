"""Reading a file from a stranger: JSON parsed within `ReadLimits` (size, nesting, number
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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from server.i18n.said import said


class Unreadable(Exception):
    """Not a record or bundle at all."""


MiB = 2**20


@dataclass(frozen=True)
class ReadLimits:
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
    # A bundle file larger than stream_from is read a record at a time (`JsonStream`):
    # each of its values within max_bytes and the limits above, the file within
    # max_bundle_bytes (RECORD.md v1.3, "Size": 100,000 records in bounded memory).
    stream_from: int = 8 * MiB
    max_bundle_bytes: int = 4 * 1024 * MiB


LIMITS = ReadLimits()

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


def parse_json(raw: bytes, limits: ReadLimits = LIMITS) -> Any:
    """The JSON document in `raw`, or Unreadable saying in one line why the verifier does
    not read it: over `limits`, empty, not UTF-8 (one leading byte order mark is
    skipped), not JSON, NaN or Infinity, a number past max_number_chars or a double's
    range, or an object with a key twice (its meaning would depend on the reader)."""
    if len(raw) > limits.max_bytes:
        raise Unreadable(
            said("audit.unreadable.too_large", size=f"{len(raw):,}", max=f"{limits.max_bytes:,}")
        )
    if raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
    if _BLANK.fullmatch(raw):
        raise Unreadable(said("audit.unreadable.empty"))
    _check_structure(raw, limits)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = show(raw[exc.start : exc.start + 1])
        raise Unreadable(said("audit.unreadable.utf8", at=f"{exc.start:,}", byte=byte)) from None
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
        raise Unreadable(exc.args[0]) from None
    except json.JSONDecodeError as exc:
        at = {"line": f"{exc.lineno:,}", "col": f"{exc.colno:,}"}
        raise Unreadable(said("audit.unreadable.not_json_at", why=exc.msg, **at)) from None
    except RecursionError:  # _check_structure bounds nesting well below this
        raise Unreadable(said("audit.unreadable.nested", depth=limits.max_depth)) from None
    finally:
        if collecting:
            gc.enable()


def _check_structure(raw: bytes, limits: ReadLimits) -> None:
    """Nesting depth and the number of arrays and objects, from the brackets outside
    strings, before anything is built. On text that is not JSON the counts may be off;
    the parser then says what is wrong."""
    brackets = _brackets(raw)
    containers = brackets.count(b"[") + brackets.count(b"{")
    if containers > limits.max_containers:
        raise Unreadable(
            said(
                "audit.unreadable.containers",
                n=f"{containers:,}",
                max=f"{limits.max_containers:,}",
            )
        )
    for _ in range(limits.max_depth):  # each round removes the innermost pairs
        if not brackets:
            return
        brackets = _PAIR.sub(b"", brackets)
    if _PAIR.search(brackets):
        raise Unreadable(said("audit.unreadable.nested", depth=limits.max_depth))


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
                raise _Refused(said("audit.unreadable.key_twice", name=show(key)))
            seen.add(key)
    return obj


def _number(text: str, limits: ReadLimits) -> str:
    if len(text) > limits.max_number_chars:
        raise _Refused(
            said(
                "audit.unreadable.long_number",
                n=f"{len(text):,}",
                max=limits.max_number_chars,
                number=show(text),
            )
        )
    return text


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(said("audit.unreadable.huge_number", number=show(text)))
    return value


def _constant(text: str) -> Any:
    raise _Refused(said("audit.unreadable.not_a_number", text=text))


def one_line(text: str, limit: int = 300) -> str:
    """`text` as one printable line of at most about `limit` characters: control and
    other unprintable characters escaped, the rest cut off with an ellipsis."""
    cut = text[: limit + 1]
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)
    if len(line) > limit or len(text) > len(cut):
        line = line[:limit] + "…"
    return line


class NotAnObject(Unreadable):
    """A streamed file whose top level is not an object."""


_READ = 1 << 20  # bytes read from a streamed file at once
_WS = " \t\r\n"


class JsonStream:
    """A JSON document whose top level is an object, read from a binary file a piece at
    a time: `members` yields each key and its value, parsed within `limits` (a value
    within max_bytes, numbers, duplicate keys and NaN as `parse_json`; nesting as deep as
    the parser allows), except the array under `streamed`, which it yields as an
    iterator of its elements (and so for each key in `streamed`), each parsed when it is
    reached (then dropped by the
    caller). Memory: a megabyte of text plus the value being read."""

    def __init__(self, f: BinaryIO, limits: ReadLimits = LIMITS) -> None:
        self.f = f
        self.limits = limits
        self.text = ""
        self.pos = 0
        self.read_bytes = 0
        self.eof = False
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.decoder = json.JSONDecoder(
            object_pairs_hook=self._object,
            parse_int=lambda t: int(_number(t, limits)),
            parse_float=lambda t: _float(_number(t, limits)),
            parse_constant=_constant,
        )
        self.containers = 0

    def members(self, *streamed: str) -> Iterator[tuple[str, Any]]:
        self._skip_bom()
        if self._peek() != "{":
            raise NotAnObject(said("audit.unreadable.expected", char="'{'", at=0))
        self.pos += 1
        if self._peek() == "}":
            self.pos += 1
            self._end()
            return
        seen: set[str] = set()
        while True:
            key = self._value()
            if not isinstance(key, str):
                raise Unreadable(said("audit.unreadable.key_not_string"))
            if key in seen:
                raise Unreadable(said("audit.unreadable.key_twice", name=show(key)))
            seen.add(key)
            self._expect(":")
            if key in streamed and self._peek() == "[":
                self.pos += 1
                elements = self._elements()
                yield key, elements
                for _ in elements:  # what the caller left is read past
                    pass
            else:
                yield key, self._value()
            if self._next_of(",}") == "}":
                self._end()
                return

    def _elements(self) -> Iterator[Any]:
        if self._peek() == "]":
            self.pos += 1
            return
        while True:
            yield self._value()
            if self._next_of(",]") == "]":
                return

    # -- the text ------------------------------------------------------------------
    def _more(self) -> bool:
        """Read more of the file into the text; False at its end."""
        if self.eof:
            return False
        raw = self.f.read(_READ)
        self.read_bytes += len(raw)
        if self.read_bytes > self.limits.max_bundle_bytes:
            most = f"{self.limits.max_bundle_bytes:,}"
            raise Unreadable(said("audit.unreadable.bundle_too_large", max=most))
        try:
            piece = self.utf8.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            at = self.read_bytes - len(raw) + exc.start
            raise Unreadable(said("audit.unreadable.not_utf8", at=f"{at:,}")) from None
        if not raw:
            self.eof = True
        if self.pos > _READ:  # drop what was read already
            self.text, self.pos = self.text[self.pos :], 0
        self.text += piece
        return bool(raw)

    def _peek(self) -> str:
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self._more():
                raise Unreadable(said("audit.unreadable.ends_soon"))

    def _expect(self, char: str) -> None:
        if self._peek() != char:
            at = f"{self._where():,}"
            raise Unreadable(said("audit.unreadable.expected", char=repr(char), at=at))
        self.pos += 1

    def _next_of(self, chars: str) -> str:
        found = self._peek()
        if found not in chars:
            at = f"{self._where():,}"
            raise Unreadable(said("audit.unreadable.expected_one_of", chars=repr(chars), at=at))
        self.pos += 1
        return found

    def _end(self) -> None:
        while True:
            rest = self.text[self.pos :].strip(_WS)
            if rest:
                raise Unreadable(said("audit.unreadable.extra_data"))
            self.pos = len(self.text)
            if not self._more():
                return

    def _skip_bom(self) -> None:
        self._more()
        if self.text.startswith("\ufeff"):
            self.pos = 1

    def _where(self) -> int:
        return self.read_bytes - len(self.text.encode("utf-8", "surrogatepass")) + self.pos

    def _value(self) -> Any:
        """The JSON value at the position, reading more of the file until it is whole
        (or past max_bytes: unreadable)."""
        self._peek()
        while True:
            self.containers = 0
            try:
                value, end = self.decoder.raw_decode(self.text, self.pos)
            except _Refused as exc:
                raise Unreadable(exc.args[0]) from None
            except RecursionError:
                raise Unreadable(said("audit.unreadable.nested_too_deep")) from None
            except json.JSONDecodeError as exc:
                have = len(self.text) - self.pos
                if have > self.limits.max_bytes:
                    most = f"{self.limits.max_bytes:,}"
                    raise Unreadable(said("audit.unreadable.value_too_large", max=most)) from None
                if not self._more():
                    raise Unreadable(said("audit.unreadable.not_json", why=exc.msg)) from None
                while len(self.text) - self.pos < 2 * have and self._more():
                    pass  # twice as much each time: a long value is parsed a few times
                continue
            whole = isinstance(value, dict | list | str)  # a number or literal may go on
            if end == len(self.text) and not self.eof and not whole and self._more():
                continue
            if end - self.pos > self.limits.max_bytes:
                most = f"{self.limits.max_bytes:,}"
                raise Unreadable(said("audit.unreadable.value_too_large", max=most))
            self.pos = end
            return value

    def _object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.containers += 1
        if self.containers > self.limits.max_containers:
            raise _Refused(
                said("audit.unreadable.too_many_objects", max=f"{self.limits.max_containers:,}")
            )
        return _object(pairs)
