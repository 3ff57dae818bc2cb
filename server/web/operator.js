// /operator: the operator's page (admins only; the server refuses everyone else too).
// Forms create a tournament or a schedule with every option the command lines have
// (opforms.js); lists close tournaments and cancel schedules, asking first; the fair-play
// section (fairplay.js) disqualifies entries (asking first) and reads the report.

import { fill, h, localTime } from "./dom.js";
import { fairplaySection } from "./fairplay.js";
import { confirmButton, entry, entryFields, field, gameFields, options, period, span, syncGame } from "./opforms.js";

const MINUTE_MS = 60e3;

export async function operatorPage(main, link) {
  await link.ready;
  if (!link.player || !link.player.admin) {
    return fill(main, h("h1", "Operators only"),
      h("p", "Sign in with an operator's token (granted with ", h("code", "samedeal-server admin grant NAME"), ")."));
  }
  const msg = h("p.op-msg", { role: "status" });
  const lists = h("section.op-lists");
  const fair = fairplaySection(link);
  const say = (text, bad = false) => { msg.textContent = text; msg.className = bad ? "op-msg error" : "op-msg ok"; };
  const act = async (fn, done) => {
    try { const reply = await fn(); await load(); say(done(reply)); } catch (exc) { say(`${exc.code || "error"}: ${exc.message}`, true); }
  };
  const load = async () => {
    const [ts, ss] = await Promise.all([link.call("tournaments"), link.call("schedules")]);
    const live = ts.items.filter((t) => t.status !== "closed");
    fair.update(ts.items);
    fill(lists,
      h("h2", "Tournaments not closed"),
      live.length ? h("ul.op-tournaments", live.map((t) => h("li", { "data-id": String(t.id) },
        h("a", { href: `/t/${t.id}`, "data-nav": "" }, t.name), ` · ${t.status} · ${localTime(t.starts_at)} – ${localTime(t.ends_at)} `,
        confirmButton("close", "Close now", `Close ${t.name} now? Every game still running ends and the seed is revealed; this cannot be undone.`,
          "Yes, close it", () => act(() => link.call("close_tournament", { tournament: t.id }), (r) => `closed ${r.tournament.name}; seed revealed`))))) : h("p.muted", "none"),
      h("h2", "Schedules"),
      ss.items.length ? h("ul.op-schedules", ss.items.map((s) => h("li", { "data-schedule": String(s.id) },
        h("strong", s.name), ` · ${period(s.every_s)}, ${span(s.duration_s)} each · ${s.cancelled ? "cancelled" : "active"} `,
        s.cancelled ? "" : confirmButton("cancel", "Cancel", `Cancel ${s.name}? No new occurrence is made; those already made stay. This cannot be undone.`,
          "Yes, cancel it", () => act(() => link.call("cancel_schedule", { schedule: s.id }), (r) => `cancelled ${r.schedule.name}`))))) : h("p.muted", "none"));
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
      }, (r) => `created ${r.tournament.name}, commitment ${r.tournament.commitment}`);
    },
    onchange: (e) => syncGame(e.currentTarget, "t"),
  }, h("h2", "New tournament"), field("t-name", "Name", { required: true, maxlength: "100" }), ...gameFields("t"),
  field("t-starts", "Starts (local time; empty: now)", { type: "datetime-local" }),
  field("t-minutes", "Lasts, minutes", { value: "60", type: "number", min: "1", step: "1", required: true }),
  ...entryFields("t", "Joining closes this many minutes after the start (empty: at the end)"),
  h("button", { type: "submit" }, "Create tournament"));
  const sForm = h("form.op-schedule", {
    onsubmit: (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      act(() => link.call("create_schedule", { name: value(form, "s-name"), game: value(form, "s-game"), options: options(form, "s"),
        first_starts_at: new Date(value(form, "s-first")).toISOString(),
        every_s: Math.round(Number(value(form, "s-every")) * Number(value(form, "s-every-unit"))),
        duration_s: Math.round(Number(value(form, "s-minutes")) * 60),
        ...entry(form, "s", (s) => ({ join_for_s: s })) }), (r) => `scheduled ${r.schedule.name}`);
    },
    onchange: (e) => syncGame(e.currentTarget, "s"),
  }, h("h2", "New schedule"), field("s-name", "Name", { required: true, maxlength: "92" }), ...gameFields("s"),
  field("s-first", "First start (local time)", { type: "datetime-local", required: true }),
  h("div.field.every", h("label", { for: "s-every" }, "Every"), h("span.pair", h("input#s-every", { name: "s-every", type: "number", min: "1", step: "1", value: "1", required: true }),
    h("select#s-every-unit", { name: "s-every-unit", "aria-label": "unit" }, [["86400", "days"], ["3600", "hours"], ["60", "minutes"], ["604800", "weeks"]]
      .map(([v, w]) => h("option", { value: v }, w))))),
  field("s-minutes", "Each lasts, minutes", { value: "60", type: "number", min: "1", step: "1", required: true }),
  ...entryFields("s", "Joining closes this many minutes after each start (empty: at its end)"),
  h("button", { type: "submit" }, "Create schedule"));
  fill(main, h("div.operator", h("h1", "Operator"), msg, h("div.op-forms", tForm, sForm), lists, fair.el));
  syncGame(tForm, "t");
  syncGame(sForm, "s");
  await load();
  return () => {};
}
