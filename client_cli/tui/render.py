"""Pure renderers: a game view -> rich Text. No I/O, so tests can read exactly what is shown."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rich.text import Text

from server import i18n
from server.i18n import terminal
from server.i18n.terminal import t, tn

SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED = {"D", "H"}
VARIANT_RULE = {"montana", "addiction", "free_parking"}  # variants with a rule under the board
TWO_WAYS = " ⇄ "  # a free_parking gap two different cards may enter


def label(code: str) -> str:
    """A card as the board shows it: 10♠ for TS."""
    return ("10" if code[0] == "T" else code[0]) + SYMBOL[code[1]]


def card_text(code: str) -> Text:
    style = "bold red" if code[1] in RED else "bold bright_white"
    return Text(label(code).rjust(3), style=style)


def where(cell: tuple[int, int] | list[int]) -> str:
    """A Gaps cell as people count, from 1 (the protocol's [row, col] count from 0)."""
    return t("cli.gaps.cell", row=cell[0] + 1, col=cell[1] + 1)


def gaps_grid(
    view: dict[str, Any], selected: tuple[int, int] | None, variant: str = "gaps"
) -> Text:
    """The 4×13 grid: cards in suit colours, `··` a live gap, `××` a dead gap, the selected
    gap in reverse video. A variant's rule is written under the grid; montana's fixed 2s
    are underlined on a dark ground, a free_parking gap two cards fit shows `⇄`."""
    fits: dict[tuple[int, int], int] = {}
    for m in view["legal"]:
        to = (m["to"][0], m["to"][1])
        fits[to] = fits.get(to, 0) + 1
    out = Text("     " + " ".join(f"{c + 1:>3}" for c in range(13)) + "\n", style="dim")
    for r, row in enumerate(view["grid"]):
        out.append(f"{r + 1:>3}  ", style="dim")
        for c, code in enumerate(row):
            if code is None:
                cell = _gap_text(fits.get((r, c), 0), c, variant)
                if selected == (r, c):
                    cell.stylize("reverse")
            else:
                cell = card_text(code)
                if variant == "montana" and c == 0 and code[0] == "2":
                    cell.stylize("underline on grey23")
            out.append_text(cell)
            out.append(" ")
        out.append("\n")
    if variant in VARIANT_RULE:
        out.append("\n" + t(f"cli.variant_rule.{variant}") + "\n", style="italic")
    return out


def _gap_text(fits: int, col: int, variant: str) -> Text:
    if fits == 2 and col > 0 and variant == "free_parking":
        return Text(TWO_WAYS, style="bold green")
    return Text(" ··", style="green") if fits else Text(" ××", style="dim red")


def gaps_status(state: dict[str, Any], selected: tuple[int, int] | None) -> str:
    """One line about the selected gap, the position and the figures."""
    view, progress = state["view"], state["progress"]
    fits = [label(m["card"]) for m in view["legal"] if selected and tuple(m["to"]) == selected]
    if state["status"] != "playing":
        here = game_over(state)
    elif view["blocked"]:
        here = t("cli.gaps.blocked" if view["redeals_left"] else "cli.gaps.blocked_no_redeal")
    elif selected is None:
        here = t("cli.gaps.no_gap_selected")
    elif fits:
        here = t(
            "cli.gaps.gap_takes",
            gap=where(selected),
            cards=t("cli.or").join(fits),
            card=fits[0],
        )
    else:
        here = t("cli.gaps.gap_dead", gap=where(selected))
    return t(
        "cli.gaps.status",
        here=here,
        in_place=progress["cards_in_place"],
        redeals_left=view["redeals_left"],
        score=progress["score"],
    )


END_TEXT = {"won", "lost", "resigned", "timed_out"}  # the ends cli.end.* names


def closed_early(state: dict[str, Any]) -> datetime | None:
    """When a game timed out before its deadline, the moment it ended: the organiser's
    close (the server ends every game at the close, before the time was up)."""
    if state["status"] != "timed_out":
        return None
    started = datetime.fromisoformat(state["started_at"])
    ended = started.timestamp() + state["time_ms"] / 1000
    deadline = datetime.fromisoformat(state["deadline"]).timestamp()
    return datetime.fromtimestamp(ended, UTC) if ended < deadline - 1 else None


def game_over(state: dict[str, Any]) -> str:
    """Why the game is over, in words (an early close says so, not "time is up")."""
    early = closed_early(state)
    if early is not None:
        return t("cli.game_over.closed_early", at=local(early))
    status = str(state["status"])
    return t("cli.game_over", why=t(f"cli.end.{status}") if status in END_TEXT else status)


def local(when: datetime | str, seconds: bool = False) -> str:
    """A moment in the user's local time: 14:05 today, else Tue 2 Dec 14:05 (in the
    language's words: "qua., 2 de dez. 14:05")."""
    return terminal.local(when, seconds)


def relative(seconds: float) -> str:
    """'in 51 min' or '4 min ago' (seconds from now, future positive)."""
    s = round(abs(seconds))
    if s < 90:
        text = t("cli.span.s", n=s)
    elif s < 5400:
        text = t("cli.span.min", n=round(s / 60))
    elif s < 172800:
        text = t("cli.span.h_min", h=s // 3600, min=s % 3600 // 60)
    else:
        text = tn("cli.span.days", round(s / 86400))
    return t("cli.span.in", span=text) if seconds >= 0 else t("cli.span.ago", span=text)


def schedule(summary: dict[str, Any], now: datetime) -> str:
    """When a tournament (a SUMMARY) opens, closes or closed, local and relative."""
    if summary["status"] == "scheduled":
        verb, at = "cli.when.opens", summary["starts_at"]
    elif summary["status"] == "open":
        verb, at = "cli.when.closes", summary["ends_at"]
    else:
        verb, at = "cli.when.closed", summary.get("closed_at") or summary["ends_at"]
    when = datetime.fromisoformat(at)
    return t(verb, at=local(when), relative=relative((when - now).total_seconds()))


def status_word(status: str) -> str:
    """A tournament's or a game's status in words (the protocol's word when unknown)."""
    key = f"cli.status.{status}"
    return t(key) if key in i18n.catalogue(i18n.ENGLISH) else status


def duration(ms: float) -> str:
    """1:02:03 or 2:03."""
    s = max(0, int(ms // 1000))
    return f"{s // 3600}:{s % 3600 // 60:02}:{s % 60:02}" if s >= 3600 else f"{s // 60}:{s % 60:02}"


def describe(action: dict[str, Any] | None) -> str:
    """An action in words, with the command that plays it (`t2 t5 3`, `w fH`, `d`)."""
    if not action:
        return t("cli.no_move")
    kind = action.get("kind")
    if kind == "move" and "card" in action:
        return t("cli.describe.gaps", card=label(action["card"]), cell=where(action["to"]))
    if kind == "move":
        short = {"waste": "w"}
        src, dst = short.get(action["from"], action["from"]), short.get(action["to"], action["to"])
        count = int(action.get("count", 1))
        typed = f"{src} {dst}" + (f" {count}" if count > 1 else "")
        return tn("cli.describe.klondike", count, src=action["from"], dst=action["to"], typed=typed)
    if kind in ("draw", "auto"):
        return t(f"cli.describe.{kind}")
    return str(kind)


def klondike_table(view: dict[str, Any]) -> Text:
    out = Text()
    out.append(t("cli.klondike.stock") + " ", style="dim")
    out.append(f"[{view['stock']:>2}]  ")
    out.append(t("cli.klondike.waste") + " ", style="dim")
    for code in view["waste"]:
        out.append_text(card_text(code))
    out.append(f"  ({view['waste_count']})     ", style="dim")
    for suit, top in view["foundations"].items():
        out.append(f"f{suit}:", style="dim")
        out.append_text(card_text(top) if top else Text(" --", style="dim"))
        out.append(" ")
    out.append("\n\n")
    depth = max(col["down"] + len(col["up"]) for col in view["tableau"])
    out.append("  ".join(f" t{i}" for i in range(7)) + "\n", style="dim")
    for line in range(depth):
        for col in view["tableau"]:
            if line < col["down"]:
                out.append(" ▒▒", style="blue")
            elif line < col["down"] + len(col["up"]):
                out.append_text(card_text(col["up"][line - col["down"]]))
            else:
                out.append("   ")
            out.append("  ")
        out.append("\n")
    return out


def klondike_status(state: dict[str, Any]) -> str:
    p, v = state["progress"], state["view"]
    left = t("cli.unlimited") if v["recycles_left"] is None else str(v["recycles_left"])
    warn = "   " + t("cli.klondike.no_moves") if v["no_moves"] else ""
    head = t("cli.playing") if state["status"] == "playing" else game_over(state)
    status = t(
        "cli.klondike.status",
        head=head,
        home=p["cards_home"],
        score=p["score"],
        moves=p["moves"],
        left=left,
    )
    return status + warn


def standings_text(msg: dict[str, Any] | None, me: str, game: str | None = None) -> Text:
    """The side panel's short table: rank, player, progress, resets (in the game's word)."""
    title = t("cli.standings.final" if msg and msg["final"] else "cli.standings.title")
    out = Text(title + "\n", style="bold")
    what = t("cli.standings.cards_home" if game == "klondike" else "cli.standings.cards_in_place")
    player, in_, status = t("cli.col.player"), t("cli.col.in"), t("cli.col.status")
    out.append(f"{'#':>3} {player:<12} {in_:>3} {resets_label(game)} {status}\n")
    for row in (msg or {}).get("rows", [])[:20]:
        style = "reverse" if row["player"] == me else ""
        out.append(
            f"{shown_rank(row):>3} {row['player'][:12]:<12} {row['progress']:>3} "
            f"{row['resets']:>{len(resets_label(game))}} {status_word(row['status'])[:9]}\n",
            style=style,
        )
    out.append(t("cli.standings.in_is", what=what), style="dim")
    return out


# -- standings tables (samedeal standings, the standings viewer) --------------------
def resets_label(game: str | None) -> str:
    """What a row's `resets` counts, in the game's own word."""
    key = {"gaps": "cli.col.redeals", "klondike": "cli.col.recycles"}.get(game or "")
    return t(key or "cli.col.resets")


def standings_header(game: str | None = None) -> str:
    rank, player, status = t("cli.col.rank"), t("cli.col.player"), t("cli.col.status")
    progress, time_, score = t("cli.col.progress"), t("cli.col.time"), t("cli.col.score")
    return (
        f"{rank:>4}  {player:<20} {status:<10} {progress:>8} "
        f"{resets_label(game):>8} {time_:>8} {score:>6}"
    )


STANDINGS_HEADER = standings_header()  # 68 columns: fits an 80-column terminal


def shown_rank(r: dict[str, Any]) -> str:
    """A row's rank as shown: "DQ" for a disqualified entry (rank null, fair play)."""
    return "DQ" if r["rank"] is None else str(r["rank"])


def standings_row(r: dict[str, Any]) -> str:
    reason = r.get("disqualified")
    return (
        f"{shown_rank(r):>4}  {r['player'][:20]:<20} {status_word(r['status'])[:10]:<10} "
        f"{r['progress']:>8} {r['resets']:>8} {duration(r['time_ms']):>8} "
        f"{r['score']:>6}" + ("  " + t("cli.disqualified", why=reason) if reason else "")
    )


def advance_rows(rows: list[dict[str, Any]], elapsed_ms: int) -> list[dict[str, Any]]:
    """The rows with the clocks of games still playing advanced by `elapsed_ms` (the time
    since the window's `server_time`, PROTOCOL.md "Running clocks")."""
    if elapsed_ms <= 0:
        return rows
    return [
        {**r, "time_ms": r["time_ms"] + elapsed_ms} if r.get("status") == "playing" else r
        for r in rows
    ]


class RunningClock:
    """The server's clock as the client knows it: the local clock (`clock`, seconds since
    the epoch) plus an offset, measured by `sync` from a ping's round trip or, until then,
    taken from the first standings message seen as if it arrived at once."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.offset: float | None = None
        self.synced = False

    def sync(self, server_time: str, sent: float, received: float) -> None:
        """The offset from a pong's `server_time`, sent at `sent`, answered at `received`."""
        self.offset = datetime.fromisoformat(server_time).timestamp() - (sent + received) / 2
        self.synced = True

    def seen(self, msg: dict[str, Any]) -> None:
        stamp = msg.get("server_time")
        if not self.synced and isinstance(stamp, str):
            self.offset = datetime.fromisoformat(stamp).timestamp() - self.clock()

    def now(self) -> float:
        return self.clock() + (self.offset or 0.0)

    def elapsed_ms(self, msg: dict[str, Any] | None) -> int:
        """Milliseconds of the server's clock since `msg`'s `server_time` (0 without)."""
        stamp = (msg or {}).get("server_time")
        if msg is None or msg.get("final") or not isinstance(stamp, str):
            return 0
        return max(0, int((self.now() - datetime.fromisoformat(stamp).timestamp()) * 1000))


def skipped_before(rows: list[dict[str, Any]]) -> list[bool]:
    """For each row of a window (rows in rank order, ranks shared as 1, 2, 2, 4), whether
    rows of the table were left out just before it: the rank after a group of k rows
    sharing rank r is r + k when nothing is left out."""
    shared: dict[int, int] = {}
    for r in rows:
        shared[r["rank"]] = shared.get(r["rank"], 0) + 1
    out = [False] * len(rows)
    for i in range(1, len(rows)):
        prev, rank = rows[i - 1]["rank"], rows[i]["rank"]
        if prev is None or rank is None:  # the disqualified, listed after the ranked
            continue
        out[i] = rank != prev and rank > prev + shared[prev]
    return out


def standings_lines(
    rows: list[dict[str, Any]],
    me: str | None = None,
    gap_after: Any = None,
    game: str | None = None,
) -> Text:
    """The header and one line per row, `…` where the window leaves rows out (after
    `gap_after` rows when the server says so, else where the ranks skip), the row of `me`
    in reverse video."""
    out = Text(standings_header(game) + "\n", style="bold")
    mine = (me or "").casefold()
    gaps = skipped_before(rows)
    if isinstance(gap_after, int) and 0 < gap_after < len(rows):
        gaps[gap_after] = True
    for row, gap in zip(rows, gaps, strict=True):
        if gap:
            out.append(f"{'…':>4}\n", style="dim")
        style = "reverse" if mine and row["player"].casefold() == mine else ""
        out.append(standings_row(row) + "\n", style=style)
    return out
