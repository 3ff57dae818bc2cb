"""Reading a stranger's file (server/audit/untrusted.py): `parse_json` and `JsonStream`
read JSON within `ReadLimits` or say in one line why not (`Unreadable`, each reason its own
catalogue key), and `show` / `one_line` keep what a message quotes short and on one line."""

from __future__ import annotations

import codecs
import io
import json

import pytest

from server.audit import untrusted
from server.audit.untrusted import (
    LIMITS,
    JsonStream,
    NotAnObject,
    ReadLimits,
    Unreadable,
    one_line,
    parse_json,
    show,
)


def reason(raw: bytes, limits: ReadLimits = LIMITS) -> str:
    """The catalogue key of why parse_json does not read `raw`."""
    with pytest.raises(Unreadable) as info:
        parse_json(raw, limits)
    return str(info.value.args[0].key)


def test_parse_json_alone() -> None:
    assert parse_json(b' {"a": [1, 2.5, "x", null, true]} ') == {"a": [1, 2.5, "x", None, True]}
    with pytest.raises(Unreadable, match="not JSON: Extra data at line 1 column 4"):
        parse_json(b"{} {}")


def test_one_leading_byte_order_mark_is_skipped() -> None:
    assert parse_json(codecs.BOM_UTF8 + b'{"a": "\xc3\xa9"}') == {"a": "é"}
    assert reason(codecs.BOM_UTF8 * 2 + b"{}") == "audit.unreadable.not_json_at"  # one only


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (b"", "audit.unreadable.empty"),
        (b" \r\n\t", "audit.unreadable.empty"),
        (b'{"a": "\xff"}', "audit.unreadable.utf8"),
        (b'{"a": 1, "a": 1}', "audit.unreadable.key_twice"),
        (b"[NaN]", "audit.unreadable.not_a_number"),
        (b"[-Infinity]", "audit.unreadable.not_a_number"),
        (b"[1e400]", "audit.unreadable.huge_number"),
        (b"[" + b"1" * 41 + b"]", "audit.unreadable.long_number"),
        (b"[1, 2", "audit.unreadable.not_json_at"),
        (b"[" * 33 + b"]" * 33, "audit.unreadable.nested"),
    ],
)
def test_what_parse_json_does_not_read_and_why(raw: bytes, key: str) -> None:
    assert reason(raw) == key


def test_the_limits_bound_size_depth_and_containers() -> None:
    assert reason(b"[1, 2, 3]", ReadLimits(max_bytes=8)) == "audit.unreadable.too_large"
    assert parse_json(b"[[[]]]", ReadLimits(max_depth=3)) == [[[]]]
    assert reason(b"[[[[]]]]", ReadLimits(max_depth=3)) == "audit.unreadable.nested"
    assert reason(b"[{}, [], {}]", ReadLimits(max_containers=3)) == "audit.unreadable.containers"
    assert parse_json(b"[1234]", ReadLimits(max_number_chars=4)) == [1234]
    assert reason(b"[-1234]", ReadLimits(max_number_chars=4)) == "audit.unreadable.long_number"


def test_brackets_inside_strings_count_for_nothing() -> None:
    deep_text = json.dumps({"s": "[{" * 100 + '\\"[', "t": "]]]"}).encode()
    assert parse_json(deep_text, ReadLimits(max_depth=1, max_containers=1))["t"] == "]]]"


def test_show_cuts_a_value_short_and_keeps_it_on_one_line() -> None:
    assert show("abc") == "'abc'"
    long = show("x" * 10_000)
    assert len(long) <= 80 and "..." in long
    deep = show([[[[[[1]]]]]])
    assert "\n" not in deep and len(deep) < 40
    assert "\n" not in show("a\nb") and show({"a": 1}) == "{'a': 1}"


def test_one_line_escapes_the_unprintable_and_cuts_the_rest() -> None:
    assert one_line("plain é") == "plain é"
    assert one_line("a\nb\x1b[31m") == "a\\nb\\x1b[31m"
    assert one_line("x" * 20, limit=10) == "x" * 10 + "…"
    assert one_line("x" * 10, limit=10) == "x" * 10


def members(raw: bytes, *streamed: str, limits: ReadLimits = LIMITS) -> dict[str, object]:
    got = JsonStream(io.BytesIO(raw), limits).members(*streamed)
    return {k: (list(v) if k in streamed and not isinstance(v, list) else v) for k, v in got}


def test_a_stream_yields_each_member_and_the_streamed_array_one_element_at_a_time() -> None:
    doc = {"format": "f", "records": [{"a": 1}, [2], "3"], "after": {"b": None}}
    stream = JsonStream(io.BytesIO(json.dumps(doc).encode())).members("records")
    key, records = next(stream)
    assert (key, records) == ("format", "f")
    key, records = next(stream)
    assert key == "records" and not isinstance(records, list)
    assert next(records) == {"a": 1}  # the rest is read past when the stream goes on
    assert next(stream) == ("after", {"b": None})
    assert members(codecs.BOM_UTF8 + b" {} ") == {}
    assert members(b'{"records": []}', "records") == {"records": []}


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (b'{"a": 1', "audit.unreadable.ends_soon"),
        (b'{"a": 1} x', "audit.unreadable.extra_data"),
        (b'{"a": 1, "a": 2}', "audit.unreadable.key_twice"),
        (b'{"a": 1 "b": 2}', "audit.unreadable.expected_one_of"),
        (b'{"a" 1}', "audit.unreadable.expected"),
        (b"{1: 2}", "audit.unreadable.key_not_string"),
        (b'{"a": [NaN]}', "audit.unreadable.not_a_number"),
        (b'{"a": "\xff"}', "audit.unreadable.not_utf8"),
        (b'{"a": tru}', "audit.unreadable.not_json"),
    ],
)
def test_what_a_stream_does_not_read_and_why(raw: bytes, key: str) -> None:
    with pytest.raises(Unreadable) as info:
        members(raw)
    assert info.value.args[0].key == key


def test_a_stream_of_something_else_than_an_object_is_not_an_object() -> None:
    with pytest.raises(NotAnObject):
        members(b"[1, 2]")


def test_a_stream_counts_its_objects_and_its_bytes() -> None:
    with pytest.raises(Unreadable, match="objects"):
        members(b'{"a": [{}, {}, {}]}', limits=ReadLimits(max_containers=2))
    with pytest.raises(Unreadable) as info:
        members(b'{"a": "' + b"x" * 100 + b'"}', limits=ReadLimits(max_bundle_bytes=50))
    assert info.value.args[0].key == "audit.unreadable.bundle_too_large"


def test_a_value_past_max_bytes_is_unreadable() -> None:
    text = b'{"format": "samedeal-bundle/1", "records": ["' + b"a" * 5000 + b'"]}'
    stream = JsonStream(io.BytesIO(text), ReadLimits(max_bytes=1000))
    with pytest.raises(Unreadable, match="too large"):
        for _, value in stream.members("records"):
            if not isinstance(value, str):
                list(value)


def test_values_split_across_reads_are_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(untrusted, "_READ", 3)  # every value crosses a read
    doc = {"n": 12345678901234, "s": "é" * 10, "a": [1.5, -2e3, True, None], "records": [{}, []]}
    members = JsonStream(io.BytesIO(json.dumps(doc).encode())).members("records")
    got = {k: (list(v) if k == "records" else v) for k, v in members}
    assert got == doc
