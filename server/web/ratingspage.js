// /leaderboard/G: a game's leaderboard, paged; /players/NAME: a player's ratings, a plot
// of the rating over their rated tournaments (inline SVG), recent results with rank and
// percentile, and streaks (PROTOCOL.md `leaderboard` and `player`, public messages).

import { fill, h, localTime } from "./dom.js";
import { ServerError } from "./net.js";
import { number, ordinal, percent, t, tn } from "./i18n.js";
import { statusWord } from "./replay.js";

export const GAMES = ["gaps", "klondike"];
const PAGE = 50;
const SVG = "http://www.w3.org/2000/svg";
const num = (x, digits = 1) => {
  if (typeof x !== "number") return "–";
  const rounded = Number(x.toFixed(digits));
  return number(rounded === 0 ? 0 : rounded, { minimumFractionDigits: digits, maximumFractionDigits: digits }); // never "-0.0"
};
const provisionalTag = () => h("span.tag.provisional", { title: t("web.ratings.provisional_title") },
  h("span.long", t("web.ratings.provisional")), h("span.short", t("web.ratings.provisional_short")));
const playerLink = (name) => h("a.player", { href: `/players/${encodeURIComponent(name)}`, "data-nav": "", translate: "no" }, name);
const gameName = (g) => (GAMES.includes(g) ? t(`web.game.${g}`) : g);
const muTitle = () => h("abbr", { title: t("web.ratings.mu_title"), translate: "no" }, "μ"); // notation, explained below the table
const sigmaTitle = () => h("abbr", { title: t("web.ratings.sigma_title"), translate: "no" }, "σ");

/** What the figures mean, for a player (issue 37: plain words beside μ and σ). */
const explained = () => h("p.rating-explained", t("web.ratings.explained"));

function tabs(current) {
  return h("nav.tabs", { "aria-label": t("web.ratings.games") }, GAMES.map((g) => (g === current
    ? h("strong.tab.on", gameName(g))
    : h("a.tab", { href: `/leaderboard/${g}`, "data-nav": "" }, gameName(g)))));
}

export async function leaderboardPage(main, link, game) {
  const body = h("section.board", h("p.muted", t("web.loading")));
  fill(main, h("div.ratings", h("h1", t("web.ratings.leaderboard")), tabs(game), body));
  let offset = 0;
  const load = async () => {
    let m;
    try {
      m = await link.call("leaderboard", { game, offset, limit: PAGE });
    } catch (exc) {
      fill(body, h("p.muted", exc instanceof ServerError ? exc.message : t("web.ratings.unavailable", { error: exc.message })));
      return;
    }
    const table = h("table.rows.leaderboard");
    table.append(h("thead", h("tr", h("th", "#"), h("th", t("web.standings.player")), h("th.num", t("web.ratings.rating")),
      h("th.num.wide", muTitle()), h("th.num.wide", sigmaTitle()),
      h("th.num", h("abbr", { title: t("web.ratings.rated_title") }, t("web.ratings.rated_short"))), h("th", ""))));
    const rows = h("tbody");
    for (const r of m.rows) {
      rows.append(h("tr", { "data-player": r.player }, h("td", String(r.rank)), h("td.player", playerLink(r.player)),
        h("td.num.rating", num(r.rating)), h("td.num.wide", num(r.mu, 2)), h("td.num.wide", num(r.sigma, 2)),
        h("td.num", String(r.tournaments)), h("td", r.provisional ? provisionalTag() : "")));
    }
    if (!m.rows.length) rows.append(h("tr", h("td.muted", { colspan: "7" }, t("web.ratings.nobody"))));
    table.append(rows);
    const last = Math.min(m.total, offset + m.rows.length);
    const pager = h("p.pager",
      h("button.prev", { disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, "← ", t("web.ratings.previous")),
      h("span.range", " ", t("web.ratings.range", { from: m.total ? offset + 1 : 0, to: m.total ? last : 0, total: m.total }), " "),
      h("button.next", { disabled: last >= m.total, onclick: () => { offset += PAGE; load(); } }, t("web.ratings.next"), " →"));
    fill(body, table, pager, explained(),
      h("p.muted.small", t("web.ratings.formula"), " ",
        h("a", { href: `/leaderboard/${game}.json?offset=${offset}&limit=${PAGE}`, translate: "no" }, "JSON")));
  };
  await load();
  return null;
}

export async function playerPage(main, link, name) {
  fill(main, h("p.muted", t("web.loading")));
  let m;
  try {
    m = await link.call("player", { name });
  } catch (exc) {
    fill(main, h("h1", t("web.ratings.player")), h("p.muted", exc instanceof ServerError ? exc.message : t("web.ratings.player_unavailable", { error: exc.message })));
    return null;
  }
  const p = m.player;
  const ratingRows = Object.entries(m.ratings).map(([game, r]) => h("tr", { "data-game": game },
    h("td", h("a", { href: `/leaderboard/${game}`, "data-nav": "" }, gameName(game))), h("td.num.rating", num(r.rating)),
    h("td.num", `#${r.rank}`), h("td.num.wide", num(r.mu, 2)), h("td.num.wide", num(r.sigma, 2)), h("td.num", String(r.tournaments)),
    h("td.num.streak", String((m.streak || {})[game] ?? 0)), h("td", r.provisional ? provisionalTag() : "")));
  const ratings = ratingRows.length
    ? h("table.rows.player-ratings", h("thead", h("tr", h("th", t("web.ratings.game")), h("th.num", t("web.ratings.rating")), h("th.num", t("web.ratings.rank")),
      h("th.num.wide", muTitle()), h("th.num.wide", sigmaTitle()),
      h("th.num", h("abbr", { title: t("web.ratings.rated_title") }, t("web.ratings.rated_short"))), h("th.num", h("abbr", { title: t("web.ratings.streak_title") }, t("web.ratings.streak"))),
      h("th", ""))), h("tbody", ratingRows))
    : h("p.muted", p.bot ? t("web.ratings.bots_never") : t("web.ratings.none_yet"));
  const plots = Object.entries(m.history || {}).map(([game, points]) => h("figure.plot", { "data-game": game },
    plot(points), h("figcaption.small", t("web.ratings.plot_caption", { game: gameName(game) }))));
  const streaks = Object.entries(m.streak || {}).map(([game, n]) => h("li", { "data-game": game },
    `${gameName(game)}: `, h("strong.streak", String(n)), " ", tn("web.ratings.streak_text", n)));
  const recent = h("table.rows.recent", h("thead", h("tr", h("th", t("web.ratings.tournament")), h("th.wide", t("web.ratings.game")), h("th.wide", t("web.ratings.closed")),
    h("th", t("web.ratings.result")), h("th.num.wide", h("abbr", { title: t("web.ratings.percentile_title") }, t("web.ratings.percentile"))),
    h("th.num", h("abbr", { title: t("web.ratings.cards_title") }, t("web.ratings.cards"))),
    h("th.num.wide", h("abbr", { title: t("web.ratings.resets_title") }, t("web.ratings.resets"))))),
  h("tbody", m.recent.map((r) => h("tr", { "data-tournament": String(r.tournament) },
    h("td", h("a", { href: `/t/${r.tournament}`, "data-nav": "", translate: "no" }, r.name)), h("td.wide", gameName(r.game)), h("td.small.wide", r.closed_at ? localTime(r.closed_at) : ""),
    h("td.result", { title: t("web.ratings.the_game", { status: statusWord(r.status) }), "data-rank": String(r.rank ?? ""), "data-entrants": String(r.entrants) },
      resultWords(r)),
    h("td.num.percentile.wide", r.percentile === null ? "–" : percent(r.percentile / 100, 1, 1)),
    h("td.num", String(r.progress)), h("td.num.wide", String(r.resets))))));
  fill(main, h("div.ratings.player-page",
    h("h1", h("span", { translate: "no" }, p.name), p.bot ? h("span.tag.bot", t("web.standings.bot")) : null),
    h("p.muted.small", t("web.ratings.registered", { when: localTime(p.created_at) }), " · ", h("a", { href: `/players/${encodeURIComponent(p.name)}.json`, translate: "no" }, "JSON")),
    h("h2", t("web.ratings.ratings")), ratings, ratingRows.length ? explained() : null, plots,
    streaks.length ? h("ul.streaks", streaks) : null,
    h("h2", t("web.ratings.recent")), m.recent.length ? recent : h("p.muted", t("web.ratings.no_closed"))));
  return null;
}

/** "1st of 6 · winner": what a tournament's rank means for the player (not how the
 * game ended, which the cell's title gives). */
export function resultWords(r) {
  if (r.rank === null) return h("span.muted", t("web.ratings.not_ranked"));
  const meaning = r.rank === 1 ? t("web.ratings.winner") : 2 * r.rank <= r.entrants ? t("web.ratings.top_half") : "";
  return h("span.meaning", t("web.ratings.place_of", { place: ordinal(r.rank), n: r.entrants }), meaning ? ` · ${meaning}` : "");
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
    "aria-label": tn("web.ratings.plot_aria", points.length) });
  for (const v of [lo, (lo + hi) / 2, hi]) {
    chart.append(svg("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), stroke: "#ccd", "stroke-width": 1 }),
      svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#667" }, number(v, { minimumFractionDigits: 1, maximumFractionDigits: 1 })));
  }
  chart.append(svg("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "),
    fill: "none", stroke: "#2a6", "stroke-width": 2 }));
  points.forEach((p, i) => chart.append(svg("circle", { cx: x(i), cy: y(p.rating), r: 3.5, fill: "#2a6", "data-tournament": p.tournament },
    svg("title", {}, t("web.ratings.point_title", { id: String(p.tournament), rating: num(p.rating, 2), mu: num(p.mu, 2), sigma: num(p.sigma, 2) })))));
  chart.append(svg("text", { x: width - pad.r, y: height - 6, "text-anchor": "end", "font-size": 11, fill: "#667" }, tn("web.ratings.plot_count", points.length)));
  return chart;
}
