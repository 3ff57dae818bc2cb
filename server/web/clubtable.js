// A team battle's club table on the page (PROTOCOL v1.4 "Team battles"; battle.js is the
// verifier's): the `clubs` every `standings` message of a battle carries, in their order
// (score, then best rank, then id: COMPETITION.md), beside the players' rows with the
// ranks each club counted.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The club table of a standings message, or null when it is no battle's. */
export function clubStandings(m) {
  if (!m || !Array.isArray(m.clubs) || !m.clubs.length) return null;
  return h("section.club-standings", h("h3", t("web.battle.title")),
    h("div.table-wrap", h("table.rows.clubs-table",
      h("thead", h("tr", h("th", "#"), h("th", t("web.battle.club")), h("th.num", t("web.battle.score")),
        h("th", { title: t("web.battle.counted_title") }, t("web.battle.counted")))),
      h("tbody", m.clubs.map((c, i) => h("tr", { "data-club": String(c.club) }, h("td", String(i + 1)),
        h("td.club", h("a", { href: `/clubs/${c.club}`, "data-nav": "", translate: "no" }, c.name)),
        h("td.num.club-score", String(c.score)),
        h("td.small.counted", c.counted_ranks.length ? c.counted_ranks.join(", ") : "–")))))));
}
