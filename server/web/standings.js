// The live standings panel: PROTOCOL v1.2's window (the top rows and the rows around the
// player's own), pushed by the server; `total` entrants and `version`. Older servers
// without windows get a plain subscribe. Bots are tagged; a disqualified entry (fair
// play) is listed after the ranked ones as "DQ" with its reason.

import { ServerError } from "./net.js";
import { clock, h, fill } from "./dom.js";
import { nameKey } from "./ranking.js";
import { t, tn } from "./i18n.js";
import { clubStandings } from "./clubtable.js";

const statusText = (status) => (["playing", "won", "lost", "resigned", "timed_out"].includes(status) ? t(`web.row.${status}`) : status);
// what a row's `resets` counts; a phone's narrow table: short headings and a sign for the
// status, the words in titles
const resetsKey = (game) => (game === "gaps" || game === "klondike" ? game : "other");
const STATUS_SIGN = { playing: "▶", won: "✓", lost: "✗", resigned: "⚑", timed_out: "⏱" };

/** A heading cell with its long words, its short form (shown on a phone) and a title. */
function heading(tag, long, short, title) {
  return h(tag, { title }, h("span.long", long), h("span.short", short));
}

/** A running row's time at the server's `now` (ms): PROTOCOL.md "Running clocks" — its
 * `time_ms` at the window's `server_time`, advanced by the time since. */
export function runningTime(row, serverTime, now) {
  const at = Date.parse(serverTime);
  if (row.status !== "playing" || Number.isNaN(at)) return row.time_ms;
  return row.time_ms + Math.max(0, now - at);
}

/** A row's player: the name (a link to the player's page) after a `bot` tag for a bot
 * (PROTOCOL.md: rows carry `bot`; first, as a long name is cut). */
export function playerCell(row) {
  return h("td.player", { title: row.bot ? t("web.standings.bot_title", { name: row.player }) : row.player }, row.bot ? h("span.tag.bot", { title: t("web.standings.bot_registered") }, t("web.standings.bot")) : null,
    h("a", { href: `/players/${encodeURIComponent(row.player)}`, "data-nav": "", translate: "no" }, row.player));
}

export class StandingsPanel {
  constructor(link, tournament, me, { top = 10, around = 5, game = null } = {}) {
    this.link = link;
    this.tournament = tournament;
    this.me = me;
    this.top = top;
    this.around = around;
    this.game = game;
    this.msg = null;
    this.timer = setInterval(() => this.tick(), 1000); // running clocks tick between pushes
    this.el = h("section.standings", { "aria-live": "polite", "aria-label": t("web.standings.aria") });
    this.onClosed = null;
    this.offs = [
      link.on("standings", (m) => m.tournament === tournament && this.show(m)),
      link.on("closed", (m) => m.tournament === tournament && this.onClosed && this.onClosed(m)),
      link.onReconnect(() => this.subscribe()),
    ];
    this.render();
  }

  async subscribe() {
    try {
      this.show(await this.link.call("subscribe", { tournament: this.tournament, top: this.top, around: this.around }));
    } catch (exc) {
      if (exc instanceof ServerError && exc.code === "bad_request") {
        try {
          this.show(await this.link.call("subscribe", { tournament: this.tournament }));
          return;
        } catch (again) {
          exc = again;
        }
      }
      this.error = exc instanceof ServerError && exc.code === "unauthorized"
        ? t("web.standings.players_only")
        : t("web.standings.unavailable", { error: exc.message });
      this.render();
    }
  }

  close() {
    clearInterval(this.timer);
    for (const off of this.offs) off();
    this.link.call("unsubscribe", { tournament: this.tournament }).catch(() => {});
  }

  show(msg) {
    if (this.msg && msg.version !== undefined && this.msg.version !== undefined && msg.version < this.msg.version) return;
    this.msg = msg;
    this.error = null;
    this.render();
  }

  render() {
    const m = this.msg;
    const head = h("h2", t("web.standings.title"), " ", m && m.final ? h("span.tag.final", t("web.standings.final")) : m ? h("span.tag.live", t("web.standings.live")) : null);
    if (this.error) return fill(this.el, head, h("p.muted", this.error));
    if (!m) return fill(this.el, head, h("p.muted", t("web.loading")));
    const table = h("table.rows");
    const g = resetsKey(this.game);
    const resets = t(`web.standings.resets.${g}`);
    const progress = [t(`web.standings.progress.${g}`), t(`web.standings.progress_short.${g}`), t(`web.standings.progress_title.${g}`)];
    table.append(h("thead", h("tr", h("th", "#"), h("th", t("web.standings.player")), heading("th", t("web.standings.status"), "", t("web.standings.status_title")),
      heading("th.num", ...progress), heading("th.num", t(`web.standings.resets_head.${g}`), t(`web.standings.resets_short.${g}`), resets),
      h("th.num", t("web.standings.time")), heading("th.num", t("web.standings.score"), t("web.standings.score_short"), t("web.standings.score_title")))));
    const body = h("tbody");
    // where the window leaves rows out: `gap_after` rows come before the gap (ranks alone
    // cannot tell when rows share one); an older server's window is judged by its ranks
    let prev = 0;
    m.rows.forEach((row, i) => {
      const gap = m.gap_after !== undefined ? i === m.gap_after && i > 0 : row.rank !== null && row.rank > prev + 1 && prev > 0;
      if (gap) body.append(h("tr.skip", h("td", { colspan: "7" }, "…")));
      if (row.rank !== null) prev = row.rank;
      const out = row.rank === null; // disqualified (fair play): unranked, the reason shown
      const mine = this.me && nameKey(row.player) === nameKey(this.me);
      body.append(h(`tr${mine ? ".me" : ""}${out ? ".disqualified" : ""}`, { "data-player": row.player, ...(out ? { title: t("web.standings.dq_title", { reason: row.disqualified }) } : {}) },
        h("td", out ? t("web.standings.dq") : String(row.rank)), playerCell(row), h(`td.status.st-${row.status}`, { title: statusText(row.status) },
          h("span.long", statusText(row.status)), h("span.short", { "aria-hidden": "true" }, STATUS_SIGN[row.status] || "·")),
        h("td.num", String(row.progress)), h("td.num", String(row.resets)),
        h(`td.num.time${row.status === "playing" && !m.final ? ".running" : ""}`, { "data-ms": String(row.time_ms) }, clock(this.timeOf(row))),
        h("td.num", String(row.score))));
      if (out) body.append(h("tr.dq-note", { "data-for": row.player }, h("td", { colspan: "7" }, t("web.standings.dq_note", { name: row.player, reason: row.disqualified }))));
    });
    if (!m.rows.length) body.append(h("tr", h("td.muted", { colspan: "7" }, t("web.standings.none_yet"))));
    table.append(body);
    const total = m.total ?? m.rows.length;
    const foot = h("p.muted.small", tn("web.entrants", total));
    const audit = m.version !== undefined ? h("details.audit.small", h("summary", t("web.audit.summary")),
      h("p.version", t("web.standings.version", { version: String(m.version) })), h("p.muted", t("web.standings.version_explain"))) : null;
    return fill(this.el, head, clubStandings(m), h("div.table-wrap", table), foot, audit); // v1.4 battles: clubs first
  }

  timeOf(row) {
    const m = this.msg;
    return m && !m.final && m.server_time ? runningTime(row, m.server_time, this.link.now()) : row.time_ms;
  }

  /** Advance the running rows' clocks (no push needed: the server pushes a re-ranking). */
  tick() {
    const m = this.msg;
    if (!m || m.final) return;
    for (const cell of this.el.querySelectorAll("td.time.running")) {
      cell.textContent = clock(runningTime({ status: "playing", time_ms: Number(cell.dataset.ms) }, m.server_time, this.link.now()));
    }
  }
}
