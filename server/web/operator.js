// /operator: the operator's page (admins only; the server refuses everyone else too).
// Forms create a tournament or a schedule with every option the command lines have
// (opforms.js); lists close tournaments and cancel schedules, asking first; the fair-play
// section (fairplay.js) disqualifies entries (asking first) and reads the report.

import { fill, h } from "./dom.js";
import { fairplaySection } from "./fairplay.js";
import { dateRange, t as tr } from "./i18n.js";
import { confirmButton, entry, entryFields, field, gameFields, options, period, span, syncGame } from "./opforms.js";

const MINUTE_MS = 60e3;

export async function operatorPage(main, link) {
  await link.ready;
  if (!link.player || !link.player.admin) {
    return fill(main, h("h1", tr("web.op.only")),
      h("p", tr("web.op.only_help"), " ", h("code", "samedeal-server admin grant NAME")));
  }
  const msg = h("p.op-msg", { role: "status" });
  const lists = h("section.op-lists");
  const fair = fairplaySection(link);
  const say = (text, bad = false) => { msg.textContent = text; msg.className = bad ? "op-msg error" : "op-msg ok"; };
  const act = async (fn, done) => {
    try { const reply = await fn(); await load(); say(done(reply)); } catch (exc) { say(exc.message, true); }
  };
  const load = async () => {
    const [ts, ss] = await Promise.all([link.call("tournaments"), link.call("schedules")]);
    const live = ts.items.filter((t) => t.status !== "closed");
    fair.update(ts.items);
    fill(lists,
      h("h2", tr("web.op.not_closed")),
      live.length ? h("ul.op-tournaments", live.map((t) => h("li", { "data-id": String(t.id) },
        h("a", { href: `/t/${t.id}`, "data-nav": "", translate: "no" }, t.name), ` · ${tr(`web.status.${t.status}`)} · ${dateRange(t.starts_at, t.ends_at)} `,
        confirmButton("close", tr("web.op.close_now"), tr("web.op.close_ask", { name: t.name }),
          tr("web.op.close_yes"), () => act(() => link.call("close_tournament", { tournament: t.id }), (r) => tr("web.op.closed_done", { name: r.tournament.name })))))) : h("p.muted", tr("web.lobby.none")),
      h("h2", tr("web.op.schedules")),
      ss.items.length ? h("ul.op-schedules", ss.items.map((s) => h("li", { "data-schedule": String(s.id) },
        h("strong", { translate: "no" }, s.name), ` · ${tr("web.op.schedule_line", { every: period(s.every_s), span: span(s.duration_s) })} · ${s.cancelled ? tr("web.op.cancelled") : tr("web.op.active")} `,
        s.cancelled ? "" : confirmButton("cancel", tr("web.cancel"), tr("web.op.cancel_ask", { name: s.name }),
          tr("web.op.cancel_yes"), () => act(() => link.call("cancel_schedule", { schedule: s.id }), (r) => tr("web.op.cancelled_done", { name: r.schedule.name })))))) : h("p.muted", tr("web.lobby.none")));
  };
  const value = (form, id) => form.querySelector(`#${id}`).value.trim();
  const tForm = h("form.op-tournament", {
    onsubmit: (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      act(() => {
        const starts = value(form, "t-starts") ? new Date(value(form, "t-starts")) : new Date(Date.now() + link.offset);
        const ends = new Date(starts.getTime() + Number(value(form, "t-minutes")) * MINUTE_MS);
        return link.call("create_tournament", { name: value(form, "t-name"), game: value(form, "t-game"), options: options(form, "t"),
          starts_at: starts.toISOString(), ends_at: ends.toISOString(),
          ...entry(form, "t", (s) => ({ join_until: new Date(starts.getTime() + s * 1000).toISOString() })) });
      }, (r) => tr("web.op.created", { name: r.tournament.name, commitment: r.tournament.commitment }));
    },
    onchange: (e) => syncGame(e.currentTarget, "t"),
  }, h("h2", tr("web.op.new_tournament")), field("t-name", tr("web.op.name"), { required: true, maxlength: "100" }), ...gameFields("t"),
  field("t-starts", tr("web.op.starts"), { type: "datetime-local" }),
  field("t-minutes", tr("web.op.lasts"), { value: "60", type: "number", min: "1", step: "1", required: true }),
  ...entryFields("t", tr("web.op.join_t")),
  h("button", { type: "submit" }, tr("web.op.create_tournament")));
  const sForm = h("form.op-schedule", {
    onsubmit: (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      act(() => link.call("create_schedule", { name: value(form, "s-name"), game: value(form, "s-game"), options: options(form, "s"),
        first_starts_at: new Date(value(form, "s-first")).toISOString(),
        every_s: Math.round(Number(value(form, "s-every")) * Number(value(form, "s-every-unit"))),
        duration_s: Math.round(Number(value(form, "s-minutes")) * 60),
        ...entry(form, "s", (s) => ({ join_for_s: s })) }), (r) => tr("web.op.scheduled_done", { name: r.schedule.name }));
    },
    onchange: (e) => syncGame(e.currentTarget, "s"),
  }, h("h2", tr("web.op.new_schedule")), field("s-name", tr("web.op.name"), { required: true, maxlength: "92" }), ...gameFields("s"),
  field("s-first", tr("web.op.first_start"), { type: "datetime-local", required: true }),
  h("div.field.every", h("label", { for: "s-every" }, tr("web.op.every")), h("span.pair", h("input#s-every", { name: "s-every", type: "number", min: "1", step: "1", value: "1", required: true }),
    h("select#s-every-unit", { name: "s-every-unit", "aria-label": tr("web.op.unit") }, [["86400", tr("web.op.days")], ["3600", tr("web.op.hours")], ["60", tr("web.op.minutes")], ["604800", tr("web.op.weeks")]]
      .map(([v, w]) => h("option", { value: v }, w))))),
  field("s-minutes", tr("web.op.each_lasts"), { value: "60", type: "number", min: "1", step: "1", required: true }),
  ...entryFields("s", tr("web.op.join_s")),
  h("button", { type: "submit" }, tr("web.op.create_schedule")));
  fill(main, h("div.operator", h("h1", tr("web.nav.operator")), msg, h("div.op-forms", tForm, sForm), lists, fair.el));
  syncGame(tForm, "t");
  syncGame(sForm, "s");
  await load();
  return () => {};
}
