// The live standings panel: PROTOCOL v1.2's window (the top rows and the rows around the
// player's own), pushed by the server; `total` entrants and `version`. Older servers
// without windows get a plain subscribe. Bots are tagged; a disqualified entry (fair
// play, v1.3) is listed after the ranked ones as "DQ" with its reason.

import { ServerError } from "./net.js";
import { clock, h, fill } from "./dom.js";
import { nameKey } from "./ranking.js";

const STATUS_TEXT = { playing: "playing", won: "won", lost: "lost", resigned: "resigned", timed_out: "timed out" };
const RESETS = { gaps: "redeals", klondike: "recycles" }; // what a row's `resets` counts
// a phone's narrow table: short headings and a sign for the status, the words in titles
const SHORT_RESETS = { gaps: "rd.", klondike: "rc." };
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
 * (PROTOCOL v1.3 rows carry `bot`; first, as a long name is cut). */
export function playerCell(row) {
  return h("td.player", { title: row.bot ? `${row.player} (bot)` : row.player }, row.bot ? h("span.tag.bot", { title: "registered as a bot" }, "bot") : null,
    h("a", { href: `/players/${encodeURIComponent(row.player)}`, "data-nav": "" }, row.player));
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
    this.el = h("section.standings", { "aria-live": "polite", "aria-label": "standings" });
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
        ? "This server shows standings to signed-in players only."
        : `standings unavailable: ${exc.message}`;
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
    const head = h("h2", "Standings", m && m.final ? h("span.tag.final", "final") : m ? h("span.tag.live", "live") : null);
    if (this.error) return fill(this.el, head, h("p.muted", this.error));
    if (!m) return fill(this.el, head, h("p.muted", "loading…"));
    const table = h("table.rows");
    const resets = RESETS[this.game] || "resets";
    const progress = this.game === "klondike" ? ["home", "home", "cards home"]
      : this.game === "gaps" ? ["placed", "cards", "cards in place"] : ["progress", "prog.", "progress"];
    table.append(h("thead", h("tr", h("th", "#"), h("th", "player"), heading("th", "status", "", "how the game stands"),
      heading("th.num", ...progress), heading("th.num", resets, SHORT_RESETS[this.game] || "res.", resets),
      h("th.num", "time"), heading("th.num", "score", "pts", "score (shown, not ranked on)"))));
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
      body.append(h(`tr${mine ? ".me" : ""}${out ? ".disqualified" : ""}`, { "data-player": row.player, ...(out ? { title: `disqualified: ${row.disqualified}` } : {}) },
        h("td", out ? "DQ" : String(row.rank)), playerCell(row), h(`td.status.st-${row.status}`, { title: STATUS_TEXT[row.status] || row.status },
          h("span.long", STATUS_TEXT[row.status] || row.status), h("span.short", { "aria-hidden": "true" }, STATUS_SIGN[row.status] || "·")),
        h("td.num", String(row.progress)), h("td.num", String(row.resets)),
        h(`td.num.time${row.status === "playing" && !m.final ? ".running" : ""}`, { "data-ms": String(row.time_ms) }, clock(this.timeOf(row))),
        h("td.num", String(row.score))));
      if (out) body.append(h("tr.dq-note", { "data-for": row.player }, h("td", { colspan: "7" }, `${row.player} disqualified: ${row.disqualified}`)));
    });
    if (!m.rows.length) body.append(h("tr", h("td.muted", { colspan: "7" }, "no entrants yet")));
    table.append(body);
    const total = m.total ?? m.rows.length;
    const foot = h("p.muted.small", `${total} entrant${total === 1 ? "" : "s"}`,
      m.version !== undefined ? ` · version ${m.version}` : "");
    return fill(this.el, head, h("div.table-wrap", table), foot);
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
