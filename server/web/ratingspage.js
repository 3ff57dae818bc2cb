// /leaderboard/G: a game's leaderboard, paged; /players/NAME: a player's ratings, a plot
// of the rating over their rated tournaments (inline SVG), recent results with rank and
// percentile, and streaks (PROTOCOL v1.3 `leaderboard` and `player`, public messages).

import { fill, h, localTime } from "./dom.js";
import { ServerError } from "./net.js";

export const GAMES = ["gaps", "klondike"];
const PAGE = 50;
const SVG = "http://www.w3.org/2000/svg";
const STATUS_TEXT = { won: "won", lost: "lost", resigned: "resigned", timed_out: "timed out", playing: "playing" };

const num = (x, digits = 1) => {
  if (typeof x !== "number") return "–";
  const rounded = Number(x.toFixed(digits));
  return (rounded === 0 ? 0 : rounded).toFixed(digits); // never "-0.0"
};
const provisionalTag = () => h("span.tag.provisional", { title: "provisional: fewer than 5 rated tournaments" },
  h("span.long", "provisional"), h("span.short", "prov."));
const playerLink = (name) => h("a.player", { href: `/players/${encodeURIComponent(name)}`, "data-nav": "" }, name);

function tabs(current) {
  return h("nav.tabs", { "aria-label": "games" }, GAMES.map((g) => (g === current
    ? h("strong.tab.on", g)
    : h("a.tab", { href: `/leaderboard/${g}`, "data-nav": "" }, g))));
}

export async function leaderboardPage(main, link, game) {
  const body = h("section.board", h("p.muted", "loading…"));
  fill(main, h("div.ratings", h("h1", "Leaderboard"), tabs(game), body));
  let offset = 0;
  const load = async () => {
    let m;
    try {
      m = await link.call("leaderboard", { game, offset, limit: PAGE });
    } catch (exc) {
      fill(body, h("p.muted", exc instanceof ServerError ? exc.message : `leaderboard unavailable: ${exc.message}`));
      return;
    }
    const table = h("table.rows.leaderboard");
    table.append(h("thead", h("tr", h("th", "#"), h("th", "player"), h("th.num", "rating"),
      h("th.num.wide", h("abbr", { title: "skill estimate (μ)" }, "μ")), h("th.num.wide", h("abbr", { title: "uncertainty (σ)" }, "σ")),
      h("th.num", h("abbr", { title: "rated tournaments" }, "tourn.")), h("th", ""))));
    const rows = h("tbody");
    for (const r of m.rows) {
      rows.append(h("tr", { "data-player": r.player }, h("td", String(r.rank)), h("td.player", playerLink(r.player)),
        h("td.num.rating", num(r.rating)), h("td.num.wide", num(r.mu, 2)), h("td.num.wide", num(r.sigma, 2)),
        h("td.num", String(r.tournaments)), h("td", r.provisional ? provisionalTag() : "")));
    }
    if (!m.rows.length) rows.append(h("tr", h("td.muted", { colspan: "7" }, "nobody is rated in this game yet")));
    table.append(rows);
    const last = Math.min(m.total, offset + m.rows.length);
    const pager = h("p.pager",
      h("button.prev", { disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "← previous"),
      h("span.range", m.total ? ` ${offset + 1}–${last} of ${m.total} ` : " 0 of 0 "),
      h("button.next", { disabled: last >= m.total, onclick: () => { offset += PAGE; load(); } }, "next →"));
    fill(body, table, pager,
      h("p.muted.small", "Rating = μ − 3σ (openskill's Plackett–Luce over every rated tournament, in close order). ",
        h("a", { href: `/leaderboard/${game}.json?offset=${offset}&limit=${PAGE}` }, "JSON")));
  };
  await load();
  return null;
}

export async function playerPage(main, link, name) {
  fill(main, h("p.muted", "loading…"));
  let m;
  try {
    m = await link.call("player", { name });
  } catch (exc) {
    fill(main, h("h1", "Player"), h("p.muted", exc instanceof ServerError ? exc.message : `unavailable: ${exc.message}`));
    return null;
  }
  const p = m.player;
  const ratingRows = Object.entries(m.ratings).map(([game, r]) => h("tr", { "data-game": game },
    h("td", h("a", { href: `/leaderboard/${game}`, "data-nav": "" }, game)), h("td.num.rating", num(r.rating)),
    h("td.num", `#${r.rank}`), h("td.num.wide", num(r.mu, 2)), h("td.num.wide", num(r.sigma, 2)), h("td.num", String(r.tournaments)),
    h("td.num.streak", String((m.streak || {})[game] ?? 0)), h("td", r.provisional ? provisionalTag() : "")));
  const ratings = ratingRows.length
    ? h("table.rows.player-ratings", h("thead", h("tr", h("th", "game"), h("th.num", "rating"), h("th.num", "rank"),
      h("th.num.wide", h("abbr", { title: "skill estimate (μ)" }, "μ")), h("th.num.wide", h("abbr", { title: "uncertainty (σ)" }, "σ")),
      h("th.num", h("abbr", { title: "rated tournaments" }, "tourn.")), h("th.num", h("abbr", { title: "tournaments in a row in the top half" }, "streak")),
      h("th", ""))), h("tbody", ratingRows))
    : h("p.muted", p.bot ? "Bots are never rated." : "No rated tournament yet.");
  const plots = Object.entries(m.history || {}).map(([game, points]) => h("figure.plot", { "data-game": game },
    plot(points), h("figcaption.small", `${game}: rating (μ − 3σ) after each rated tournament`)));
  const streaks = Object.entries(m.streak || {}).map(([game, n]) => h("li", { "data-game": game },
    `${game}: `, h("strong.streak", String(n)), ` tournament${n === 1 ? "" : "s"} in a row in the top half`));
  const recent = h("table.rows.recent", h("thead", h("tr", h("th", "tournament"), h("th.wide", "game"), h("th.wide", "closed"),
    h("th", "result"), h("th.num.wide", h("abbr", { title: "share of the entrants at or below this rank" }, "percentile")),
    h("th.num", h("abbr", { title: "cards in place (Gaps) or on the foundations (Klondike)" }, "cards")),
    h("th.num.wide", h("abbr", { title: "redeals (Gaps) or recycles (Klondike) used" }, "resets")))),
  h("tbody", m.recent.map((r) => h("tr", { "data-tournament": String(r.tournament) },
    h("td", h("a", { href: `/t/${r.tournament}`, "data-nav": "" }, r.name)), h("td.wide", r.game), h("td.small.wide", r.closed_at ? localTime(r.closed_at) : ""),
    h("td.result", { title: `the game: ${STATUS_TEXT[r.status] || r.status}`, "data-rank": String(r.rank ?? ""), "data-entrants": String(r.entrants) },
      resultWords(r)),
    h("td.num.percentile.wide", r.percentile === null ? "–" : `${num(r.percentile)}%`),
    h("td.num", String(r.progress)), h("td.num.wide", String(r.resets))))));
  fill(main, h("div.ratings.player-page",
    h("h1", p.name, p.bot ? h("span.tag.bot", "bot") : null),
    h("p.muted.small", `registered ${localTime(p.created_at)} · `, h("a", { href: `/players/${encodeURIComponent(p.name)}.json` }, "JSON")),
    h("h2", "Ratings"), ratings, plots,
    streaks.length ? h("ul.streaks", streaks) : null,
    h("h2", "Recent results"), m.recent.length ? recent : h("p.muted", "no closed tournament yet")));
  return null;
}

/** "1st of 6 · winner": what a tournament's rank means for the player (not how the
 * game ended, which the cell's title gives). */
export function resultWords(r) {
  if (r.rank === null) return h("span.muted", "not ranked");
  const ord = ordinal(r.rank);
  const meaning = r.rank === 1 ? "winner" : 2 * r.rank <= r.entrants ? "top half" : "";
  return h("span.meaning", `${ord} of ${r.entrants}${meaning ? ` · ${meaning}` : ""}`);
}

function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** The rating after each tournament as a line (one point per tournament, in order). */
export function plot(points, width = 640, height = 200) {
  const pad = { l: 44, r: 12, t: 12, b: 24 };
  const ys = points.map((p) => p.rating);
  let lo = Math.min(...ys, 0);
  let hi = Math.max(...ys, 1);
  if (hi - lo < 1) hi = lo + 1;
  const x = (i) => pad.l + (points.length === 1 ? (width - pad.l - pad.r) / 2 : (i * (width - pad.l - pad.r)) / (points.length - 1));
  const y = (v) => pad.t + ((hi - v) * (height - pad.t - pad.b)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "rating-plot", role: "img",
    "aria-label": `rating over ${points.length} tournament${points.length === 1 ? "" : "s"}` });
  for (const v of [lo, (lo + hi) / 2, hi]) {
    chart.append(svg("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), stroke: "#ccd", "stroke-width": 1 }),
      svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#667" }, v.toFixed(1)));
  }
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "),
    fill: "none", stroke: "#2a6", "stroke-width": 2 }));
  points.forEach((p, i) => chart.append(svg("circle", { cx: x(i), cy: y(p.rating), r: 3.5, fill: "#2a6", "data-tournament": p.tournament },
    svg("title", {}, `tournament ${p.tournament}: ${p.rating.toFixed(2)} (μ ${p.mu.toFixed(2)}, σ ${p.sigma.toFixed(2)})`))));
  chart.append(svg("text", { x: width - pad.r, y: height - 6, "text-anchor": "end", "font-size": 11, fill: "#667" }, `${points.length} rated`));
  return chart;
}
