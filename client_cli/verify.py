"""`samedeal verify FILE [--receipt SEQ:HASH [--player NAME]] [--beacon-networks FILE]`:
thin wrapper over server.audit.verify and server.audit.receipts (offline).

Files come from strangers: whatever the file holds, the verdict is one of the exit
statuses below with one line saying why, never a traceback (docs/RECORDS.md)."""

from __future__ import annotations

import argparse
import gc
import io
import os
import re
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from server.audit.drand import BUILT_IN, BeaconError, Network, networks_from_json
from server.audit.receipts import check_receipt, record_of_player
from server.audit.records import BUNDLE_FORMAT
from server.audit.untrusted import LIMITS, ReadLimits, Unreadable, one_line, parse_json, show
from server.audit.verify import NotABundle, verify_bundle_file, verify_document
from server.domain.names import name_key
from server.i18n.said import speak
from server.i18n.terminal import lang, said_error, t

EXIT_OK = 0  # every check holds
EXIT_MISMATCH = 1  # a difference (or the receipt's log is not there unchanged)
EXIT_UNREADABLE = 2  # cannot tell: no such file, not a record or bundle, past the limits
EXIT_INTERNAL = 3  # the verifier itself failed: a bug, said in one line
EXIT_INTERRUPTED = 130  # Ctrl-C

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def read_networks(path: str | None) -> Mapping[str, Network]:
    """The built-in networks plus a --beacon-networks file's; Unreadable when the file
    cannot be read or a network in it is not right."""
    if path is None:
        return BUILT_IN
    try:
        return networks_from_json(parse_json(read_file(path)))
    except OSError as exc:
        why = exc.strerror or exc
        raise Unreadable(t("cli.verify.networks_cannot_open", path=path, why=why)) from None
    except (Unreadable, BeaconError) as exc:
        raise Unreadable(t("cli.verify.networks_bad", path=path, why=said_error(exc))) from None


def parse_receipt(text: str) -> tuple[int, str]:
    """'SEQ:HASH' -> (seq, lowercase hex); argparse's type for --receipt."""
    seq, sep, digest = text.partition(":")
    if not sep or not seq.isdigit() or not _HEX64.fullmatch(digest):
        raise argparse.ArgumentTypeError(t("cli.verify.not_a_receipt", text=repr(text)))
    return int(seq), digest.lower()


def run(
    path: str,
    out: TextIO | None = None,
    receipt: tuple[int, str] | None = None,
    player: str | None = None,
    limits: ReadLimits = LIMITS,
    networks: str | None = None,
) -> int:
    """Verify the record or bundle in `path` (and a receipt against it); print what was
    checked; return the exit status. Nothing escapes: an unexpected exception is a bug
    in the verifier, printed as one line with EXIT_INTERNAL."""
    out = out or sys.stdout
    if isinstance(out, io.TextIOWrapper):
        out.reconfigure(errors="backslashreplace")  # a name the terminal cannot show
    lines: list[str] = []
    try:
        status = _verdict(path, lines, receipt, player, limits, networks)
    except KeyboardInterrupt:
        lines.append(t("cli.interrupted"))
        status = EXIT_INTERRUPTED
    except Exception as exc:  # a bug, not a verdict on the file: say so in one line
        lines.append(t("cli.verify.bug", why=f"{type(exc).__name__}: {one_line(str(exc), 200)}"))
        status = EXIT_INTERNAL
    try:
        for line in lines:
            print(one_line(line, 1000), file=out)
        out.flush()
    except BrokenPipeError:  # `samedeal verify FILE | head`: the status still stands
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


def read_file(path: str, limits: ReadLimits = LIMITS) -> bytes:
    """The file's bytes, at most limits.max_bytes + 1 of them (parse_json refuses more);
    OSError when it cannot be opened or read (missing, a directory, no permission)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limits.max_bytes:
            raise Unreadable(
                t("cli.verify.too_large", size=f"{size:,}", max=f"{limits.max_bytes:,}")
            )
        return f.read(limits.max_bytes + 1)


def _verdict(
    path: str,
    lines: list[str],
    receipt: tuple[int, str] | None,
    player: str | None,
    limits: ReadLimits,
    networks_file: str | None = None,
) -> int:
    try:
        networks = read_networks(networks_file)
    except Unreadable as exc:
        lines.append(t("cli.verify.unreadable", why=exc))
        return EXIT_UNREADABLE
    if player is not None and receipt is None:
        lines.append(t("cli.verify.player_needs_receipt"))
        return EXIT_UNREADABLE
    try:
        streamed = _streamed(path, lines, receipt, player, limits, networks)
        if streamed is not None:
            return streamed
        data = parse_json(read_file(path, limits), limits)  # no name keeps the bytes alive
        is_bundle = isinstance(data, dict) and data.get("format") == BUNDLE_FORMAT
        if receipt is not None and is_bundle and player is None:
            lines.append(t("cli.verify.receipt_needs_player"))
            return EXIT_UNREADABLE
        gc.freeze()  # the parsed file lives to the verdict: full collections skip it
        try:
            report = verify_document(data, limits, networks)
        finally:
            gc.unfreeze()
    except OSError as exc:
        lines.append(t("cli.verify.cannot_open", path=path, why=exc.strerror or exc))
        return EXIT_UNREADABLE
    except Unreadable as exc:
        lines.append(t("cli.verify.unreadable", why=f"{path}: {said_error(exc)}"))
        return EXIT_UNREADABLE
    _report_lines(report, lines)
    ok = report.ok
    if receipt is not None:
        ok = _receipt_line(data, is_bundle, receipt, player, lines) and ok
    if not ok:
        return EXIT_MISMATCH
    lines.append(t("cli.verify.verified", path=path))
    return EXIT_OK


def _report_lines(report: Any, lines: list[str]) -> None:
    """What was checked, noted and found different, a line each, in the chosen language
    (a difference too: the verifier's `Said`, naming the very field and value)."""
    lines.extend(t("cli.verify.ok_line", line=speak(lang(), line)) for line in report.checked)
    lines.extend(t("cli.verify.note_line", line=speak(lang(), line)) for line in report.notes)
    if report.error is not None:
        lines.append(t("cli.verify.fail_line", line=speak(lang(), report.error)))


def _streamed(
    path: str,
    lines: list[str],
    receipt: tuple[int, str] | None,
    player: str | None,
    limits: ReadLimits,
    networks: Mapping[str, Network],
) -> int | None:
    """A bundle over limits.stream_from, verified a record at a time (bounded memory,
    RECORD.md v1.3 "Size"); None when the file is smaller or not a bundle (read whole)."""
    if not os.path.isfile(path) or os.path.getsize(path) <= limits.stream_from:
        return None
    if receipt is not None and player is None:
        lines.append(t("cli.verify.receipt_needs_player"))
        return EXIT_UNREADABLE
    try:
        report, kept = verify_bundle_file(path, limits, player, networks)
    except NotABundle:
        return None
    _report_lines(report, lines)
    ok = report.ok
    if receipt is not None:
        shell = {"format": BUNDLE_FORMAT, "records": [] if kept is None else [kept]}
        ok = _receipt_line(shell, True, receipt, player, lines) and ok
    if not ok:
        return EXIT_MISMATCH
    lines.append(t("cli.verify.verified", path=path))
    return EXIT_OK


def _receipt_line(
    data: dict[str, Any],
    is_bundle: bool,
    receipt: tuple[int, str],
    player: str | None,
    lines: list[str],
) -> bool:
    """One line: is the acknowledged log in the file, unchanged?"""
    seq, digest = receipt
    record: Any = data
    if is_bundle:
        assert player is not None
        record = record_of_player(data, player)
    owner = record["player"]["name"] if record is not None else player
    if record is None:
        why: str | None = t("cli.verify.no_record_of", name=show(player))
    elif player is not None and name_key(str(owner)) != name_key(player):
        why = t("cli.verify.record_of_other", owner=show(owner), name=show(player))
    else:
        why = check_receipt(record, seq, digest)
    if why is None:
        key = "cli.verify.receipt_in_bundle" if is_bundle else "cli.verify.receipt_in_record"
        lines.append(t("cli.verify.ok_line", line=t(key, name=show(owner), seq=seq)))
        return True
    what = t("cli.verify.receipt_missing", name=show(owner), seq=seq, why=why)
    lines.append(t("cli.verify.fail_line", line=what))
    return False
