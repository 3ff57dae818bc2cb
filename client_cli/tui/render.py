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
            f"{row['rank']:>3} {row['player'][:14]:<14} {row['progress']:>3} "
            f"{row['resets']} {row['status'][:7]}\n",
            style=style,
        )
    return out
