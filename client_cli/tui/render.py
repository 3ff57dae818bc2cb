"""Pure renderers: a game view -> rich Text. No I/O, so tests can read exactly what is shown."""

from __future__ import annotations

from typing import Any

from rich.text import Text

SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED = {"D", "H"}


def card_text(code: str) -> Text:
    rank = "10" if code[0] == "T" else code[0]
    style = "bold red" if code[1] in RED else "bold bright_white"
    return Text(f"{rank}{SYMBOL[code[1]]}".rjust(3), style=style)


def gaps_grid(view: dict[str, Any], selected: tuple[int, int] | None) -> Text:
    """The 4×13 grid: cards in suit colours, `··` a live gap, `××` a dead gap, the selected
    gap in reverse video, the cells that a legal move fills underlined green."""
    targets = {tuple(m["to"]) for m in view["legal"]}
    out = Text("     " + " ".join(f"{c:>3}" for c in range(13)) + "\n", style="dim")
    for r, row in enumerate(view["grid"]):
        out.append(f"{r:>3}  ", style="dim")
        for c, code in enumerate(row):
            if code is None:
                live = (r, c) in targets
                cell = Text(" ··" if live else " ××", style="green" if live else "dim red")
                if selected == (r, c):
                    cell.stylize("reverse")
            else:
                cell = card_text(code)
            out.append_text(cell)
            out.append(" ")
        out.append("\n")
    return out


def gaps_status(state: dict[str, Any], selected: tuple[int, int] | None) -> str:
    """One line about the selected gap, the position and the figures."""
    view, progress = state["view"], state["progress"]
    fits = [m["card"] for m in view["legal"] if selected and tuple(m["to"]) == selected]
    if state["status"] != "playing":
        where = f"game over: {state['status']}"
    elif view["blocked"]:
        where = "blocked: type `redeal`" if view["redeals_left"] else "blocked, no redeal left"
    elif selected is None:
        where = "no gap selected"
    elif fits:
        where = f"gap {list(selected)} takes {' or '.join(fits)} — Enter to play {fits[0]}"
    else:
        where = f"gap {list(selected)} is dead"
    return (
        f"{where}   |   in place {progress['cards_in_place']}/48   redeals left "
        f"{view['redeals_left']}   score {progress['score']}"
    )


def klondike_table(view: dict[str, Any]) -> Text:
    out = Text()
    out.append("stock ", style="dim")
    out.append(f"[{view['stock']:>2}]  ")
    out.append("waste ", style="dim")
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
    left = "unlimited" if v["recycles_left"] is None else str(v["recycles_left"])
    warn = "   NO MOVES" if v["no_moves"] else ""
    head = "playing" if state["status"] == "playing" else f"game over: {state['status']}"
    return (
        f"{head}   home {p['cards_home']}/52   score {p['score']}   moves {p['moves']}   "
        f"recycles left {left}{warn}"
    )


def standings_text(msg: dict[str, Any] | None, me: str) -> Text:
    out = Text("standings" + (" (final)" if msg and msg["final"] else "") + "\n", style="bold")
    for row in (msg or {}).get("rows", [])[:20]:
        style = "reverse" if row["player"] == me else ""
        out.append(
            f"{shown_rank(row):>3} {row['player'][:14]:<14} {row['progress']:>3} "
            f"{row['resets']} {row['status'][:7]}\n",
            style=style,
        )
    return out


# -- standings tables (samedeal standings, the standings viewer) --------------------
STANDINGS_HEADER = (
    f"{'rank':>4}  {'player':<20} {'status':<10} {'progress':>8} {'resets':>6} "
    f"{'time':>10} {'score':>6}"
)


def shown_rank(r: dict[str, Any]) -> str:
    """A row's rank as shown: "DQ" for a disqualified entry (rank null, fair play)."""
    return "DQ" if r["rank"] is None else str(r["rank"])


def standings_row(r: dict[str, Any]) -> str:
    reason = r.get("disqualified")
    return (
        f"{shown_rank(r):>4}  {r['player'][:20]:<20} {r['status']:<10} "
        f"{r['progress']:>8} {r['resets']:>6} {r['time_ms'] / 1000:>9.1f}s "
        f"{r['score']:>6}" + (f"  disqualified: {reason}" if reason else "")
    )


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
    rows: list[dict[str, Any]], me: str | None = None, gap_after: Any = None
) -> Text:
    """The header and one line per row, `…` where the window leaves rows out (after
    `gap_after` rows when the server says so, else where the ranks skip), the row of `me`
    in reverse video."""
    out = Text(STANDINGS_HEADER + "\n", style="bold")
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
