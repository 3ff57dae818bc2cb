// /rules/gaps: the rules of Gaps and of its family variants (RULES-GAPS.md v1.4), each
// variant with a worked example from the contract's vectors (rulesexamples.js), replayed
// in the page by the engine the verifier uses, so the boards shown are what the rules give.

import { dealAces, gapsBoard } from "./boards.js";
import { label } from "./cards.js";
import { fill, h } from "./dom.js";
import { hexToBytes } from "./drbg.js";
import { GAP, GAPS, GapsState, VARIANTS, parseGrid, parseOptions, variantOf } from "./gaps.js";
import { cellName } from "./actionwords.js";
import { EXAMPLES } from "./rulesexamples.js";

export async function rulesPage(main) {
  fill(main, h("h1", "Gaps: the rules"), h("p.muted", "loading the examples…"));
  const sections = await Promise.all([montana(), addiction(), freeParking()]);
  fill(main, h("article.rules",
    h("h1", "Gaps: the rules"),
    h("p.lead", "Gaps (also called Montana) and three of its family, as this server referees them. ",
      "A tournament names its variant in the lobby and on its page; everything not said under a variant is as in plain Gaps."),
    h("nav.rules-toc", h("a", { href: "#gaps" }, "Gaps"), " · ", h("a", { href: "#montana" }, "Montana"), " · ",
      h("a", { href: "#addiction" }, "Addiction"), " · ", h("a", { href: "#free_parking" }, "Free Parking")),
    plain(), variantsTable(), ...sections, notOffered()));
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }
}

function plain() {
  return h("section#gaps.rule", h("h2", "Gaps"), h("ul",
    h("li", "One deck of 52 cards is dealt face up in 4 rows of 13. The 4 aces are then taken out where they lie: 48 cards and 4 gaps. Aces never come back."),
    h("li", "A move puts one card, from anywhere, into a gap; the cell it left becomes a gap. Nothing else moves."),
    h("li", "A gap in column 1 takes any 2. Any other gap takes exactly one card: the same suit as its left neighbour and one rank higher (5♥ on the left takes 6♥)."),
    h("li", "A gap whose left neighbour is a King or another gap is dead (✕): nothing can enter it."),
    h("li", "Blocked: no move is legal. Only then may you redeal (2 redeals unless the tournament says otherwise). Each row keeps its run, the cards from a 2 in column 1 going up in one suit (2♥ 3♥ 4♥ …); every other card is shuffled from your own stream, and each row's one gap is right after its run. When redeals reshuffle every card, nothing is kept and every gap is in column 1."),
    h("li", "Won: every row reads 2 to King of one suit from column 1. Lost: blocked with no redeal left (the server ends the game at once). You may also resign; the clock may run out."),
    h("li", "Cards in place (the ranking figure) are the runs' cards, 0 to 48. Score: cards in place − 5 per redeal, + 10 for a win without a redeal.")),
  h("p.example", h("strong", "Example. "), "A gap has 5♥ just left of it and 6♥ is in another row: move 6♥ into it; its old cell becomes a gap. If that new gap has K♣ on its left it is dead, but the game goes on while another gap takes a card or a redeal is left."));
}

function variantsTable() {
  const rows = [
    ["Gaps", "as above", "–", "after each kept run", "2"],
    ["Montana", "the 2s pre-placed in column 1", "–", "after each kept run", "2"],
    ["Addiction", "as above", "–", "where the aces fall", "3"],
    ["Free Parking", "as above", "the card below its right neighbour", "after each kept run", "2"],
  ];
  return h("section.rule.variants-table", h("h2", "The variants at a glance"),
    h("table", h("thead", h("tr", ["variant", "deal", "a gap also takes", "a redeal's gaps", "redeals"].map((t) => h("th", t)))),
      h("tbody", rows.map((r) => h("tr", r.map((t) => h("td", t)))))));
}

/** A worked example: before and after, side by side, each with its caption. */
function example(text, before, after) {
  return h("div.example", h("p", h("strong", "Example (from the contract's vectors). "), text),
    h("div.example-boards", h("figure", before.board, h("figcaption", before.caption)), h("figure", after.board, h("figcaption", after.caption))));
}

async function dealOf(ex) {
  return GAPS.newGame(hexToBytes(ex.seed), parseOptions(ex.options), { playerId: 1 });
}

async function montana() {
  const ex = EXAMPLES.montana;
  const state = await dealOf(ex);
  const after = await state.apply(ex.move);
  const v = VARIANTS.montana;
  return h(`section#${v.name}.rule`, h("h2", "Montana"),
    h("p", "Montana in the strict sense: “the 2s are pre-placed in the leftmost column before play”, which makes it significantly easier."),
    h("ul",
      h("li", "Deal: the deck is shuffled as for Gaps; column 1 holds 2♣ 2♦ 2♥ 2♠ from the top, whatever the shuffle, and the other 48 cards fill columns 2 to 13 row by row in shuffled order. The aces are then taken out where they lie: the 4 gaps are never in column 1."),
      h("li", "The 2s never move (the board rings them as fixed), so each row's suit is fixed from the start (♣ ♦ ♥ ♠ from the top) and you start with 4 cards in place."),
      h("li", "Redeals keep each row's run (at least its 2), with the gap right after it. Redeals that reshuffle every card are not offered: they would gather the pre-placed 2s."),
      h("li", "Moves, dead gaps, blocked, won and lost: as in Gaps.")),
    example(`The deal of seed ${ex.seed.slice(0, 8)}…: the 2s stand fixed in column 1. The gap at ${cellName(ex.move.to)} follows ${label(state.view().grid[ex.move.to[0]][ex.move.to[1] - 1])}, so it takes ${label(ex.move.card)}; played, ${label(ex.move.card)}'s old cell becomes a gap.`,
      { board: gapsBoard(state.view(), { options: ex.options }), caption: "the deal" },
      { board: gapsBoard(after.view(), { options: ex.options, highlight: [ex.move.card] }), caption: `after ${label(ex.move.card)} to ${cellName(ex.move.to)}` }));
}

async function addiction() {
  const ex = EXAMPLES.addiction;
  const options = parseOptions(ex.options);
  const blocked = new GapsState({ seed: hexToBytes(ex.seed), playerId: ex.playerId, redeals: options.redeals, grid: parseGrid(ex.blocked), variant: variantOf(options) });
  const after = await blocked.apply({ kind: "redeal" });
  const perRow = [0, 1, 2, 3].map((r) => after.grid.slice(r * 13, r * 13 + 13).filter((c) => c === GAP).length);
  return h("section#addiction.rule", h("h2", "Addiction"),
    h("p", "“Normally 3 redeals”, with “the aces as variable gap makers during redeals”."),
    h("ul",
      h("li", "Deal and moves: as in Gaps. 3 redeals unless the tournament says otherwise."),
      h("li", "A redeal keeps what a Gaps redeal keeps (the runs; nothing when redeals reshuffle every card). Every other card and the 4 aces are shuffled together from your own stream and fill every cell not kept, row by row. Then the aces are taken out where they fell: those are the 4 gaps."),
      h("li", "So the gaps move: a row may hold 0 to 4 gaps, a run may be followed at once by a card (when it is the run's next card, the run is longer now), and a complete row's last cell is filled like any other.")),
    example(`Player ${ex.playerId}'s game on seed ${ex.seed.slice(0, 8)}…, blocked for the first time (every gap is dead). Redeal 1 shuffles the aces in: the new gaps are where they fell (marked with the ace), ${perRow.join(", ")} gaps in rows 1 to 4.`,
      { board: gapsBoard(blocked.view(), { options }), caption: "blocked: no move is legal" },
      { board: gapsBoard(after.view(), { options, aces: dealAces(after, true) }), caption: "after redeal 1: the gaps are where the aces fell" }));
}

async function freeParking() {
  const ex = EXAMPLES.free_parking;
  const state = await dealOf(ex);
  const after = await state.apply(ex.move);
  const [r, c] = ex.move.to;
  const row = state.view().grid[r];
  const takes = state.view().legal.filter((m) => m.to[0] === r && m.to[1] === c).map((m) => label(m.card));
  return h("section#free_parking.rule", h("h2", "Free Parking"),
    h("p", "PySolFC's Free Parking (also called Moonlight, or Park and Ride): a gap can be filled from either side."),
    h("ul",
      h("li", "Deal and redeals: as in Gaps."),
      h("li", "A gap outside column 1 takes the card one rank higher than its left neighbour (as in Gaps) and also the card one rank lower than its right neighbour, in that neighbour's suit: 4♥ may enter left of 5♥, and a 2 may enter left of the 3 of its suit. On the board, ◂ marks the card that follows the left neighbour, ▸ the card that leads into the right one."),
      h("li", "A right neighbour that is a 2 or a gap gives nothing, and a gap in column 13 has no right neighbour. A gap in column 1 takes any 2, as in Gaps."),
      h("li", "Dead: a gap whose left neighbour is a King or a gap and whose right neighbour is a 2, a gap or missing. Blocked: every gap dead."),
      h("li", "A card may go back and forth, so a game need not end by itself: the action limit and the clock end it.")),
    example(`The deal of seed ${ex.seed.slice(0, 8)}…: the gap at ${cellName(ex.move.to)} has ${label(row[c - 1])} on its left and ${label(row[c + 1])} on its right, so it takes ${takes.join(" or ")}. ${label(ex.move.card)} is played by its right neighbour's rule.`,
      { board: gapsBoard(state.view(), { options: ex.options }), caption: "the deal: two ways into one gap" },
      { board: gapsBoard(after.view(), { options: ex.options, highlight: [ex.move.card] }), caption: `after ${label(ex.move.card)} to ${cellName(ex.move.to)}` }));
}

function notOffered() {
  return h("section#names.rule", h("h2", "Names, and what is not offered"), h("ul",
    h("li", "“Spaces” in the seed documents is Gaps with redeals that reshuffle every card; PySolFC's “Spaces” is Addiction. PySolFC's “Montana” is plain Gaps."),
    h("li", "Paganini is not offered: its redeal rule is too vague to referee move for move, and PySolFC's Paganini is another game (36 cards on 4 × 10).")));
}
