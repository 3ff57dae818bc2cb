"""The fair-play report as a person reads it, in a language: the one writer of both
command lines (`samedeal fairplay T`, over the protocol, and `samedeal-server fairplay
report T`, on the database), so that they print the same lines (issue 34), said through
the catalogues (issue 37). Pure: findings in (their wire form, `Finding.as_dict`), lines
out; the caller prints them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from server.i18n import ENGLISH, catalogue, translate, translate_plural


def finding_line(lang: str, finding: Mapping[str, Any]) -> str:
    """One finding: its kind, the players, why with the figures. A finding from a newer
    server (a kind, or params, this catalogue does not know) keeps its English `why`."""
    kind = str(finding["kind"])
    known = catalogue(ENGLISH)
    word = translate(lang, f"fairplay.kind.{kind}") if f"fairplay.kind.{kind}" in known else kind
    params = finding.get("why_params")
    why = str(finding["why"])
    if isinstance(params, dict) and f"fairplay.why.{kind}" in known:
        why = translate(lang, f"fairplay.why.{kind}", **params)
    return f"{word:<12} {', '.join(finding['players'])}: {why}"


def report_lines(lang: str, findings: Sequence[Mapping[str, Any]], as_json: bool) -> list[str]:
    """The report: a JSON object per finding (for programs: no words added), or a line
    per finding and the count, saying they are pointers, not verdicts."""
    if as_json:
        return [json.dumps(dict(f), ensure_ascii=False) for f in findings]
    lines = [finding_line(lang, f) for f in findings]
    return [*lines, translate_plural(lang, "fairplay.count", len(findings))]


def disqualified_line(lang: str, tournament: int, player: str, amendment: bool) -> str:
    """The line a disqualification made prints (an amendment: a closed tournament's)."""
    key = "fairplay.disqualified_amended" if amendment else "fairplay.disqualified"
    return translate(lang, key, tournament=tournament, player=player)
