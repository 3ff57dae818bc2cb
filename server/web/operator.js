// /operator: the operator's page (admins only; the server refuses everyone else too).
// Forms create a tournament or a schedule; lists close tournaments and cancel schedules;
// the fair-play section (fairplay.js) disqualifies entries and reads the report.

import { fill, h, localTime } from "./dom.js";
import { fairplaySection } from "./fairplay.js";
import { VARIANTS } from "./gaps.js";

/** A choice of the Gaps variant (RULES-GAPS.md v1.4), each named in words with its
 * default redeals; only for game gaps (Klondike has no variant). */
function variantField(id, gameId) {
  const select = h(`select#${id}`, { name: id },
    Object.values(VARIANTS).map((v) => h("option", { value: v.name },
      `${v.name === "gaps" ? "Gaps (plain)" : v.words} · ${v.redeals} redeals by default`)));
  const sync = (form) => {
    const game = form.querySelector(`#${gameId}`).value.trim();
    select.disabled = game !== "gaps";
  };
  return { nodes: [h("label", { for: id }, "Variant (Gaps)"), select], sync };
}

/** The options to send: the JSON typed, with the chosen variant when it is not plain Gaps. */
function withVariant(options, form, id, gameId) {
  const select = form.querySelector(`#${id}`);
  if (form.querySelector(`#${gameId}`).value.trim() !== "gaps" || select.value === "gaps") return options;
  return { ...options, variant: select.value };
}

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
        h("button.close", { onclick: () => act(() => link.call("close_tournament", { tournament: t.id }), (r) => `closed ${r.tournament.name}; seed revealed`) }, "Close now")))) : h("p.muted", "none"),
      h("h2", "Schedules"),
      ss.items.length ? h("ul.op-schedules", ss.items.map((s) => h("li", { "data-schedule": String(s.id) },
        h("strong", s.name), ` · every ${s.every_s} s · ${s.cancelled ? "cancelled" : "active"} `,
        s.cancelled ? "" : h("button.cancel", { onclick: () => act(() => link.call("cancel_schedule", { schedule: s.id }), (r) => `cancelled ${r.schedule.name}`) }, "Cancel")))) : h("p.muted", "none"));
  };
  const f = (id, label, attrs = {}) => [h("label", { for: id }, label), h(`input#${id}`, { name: id, ...attrs })];
  const value = (form, id) => form.querySelector(`#${id}`).value.trim();
  const options = (form, id) => { const raw = value(form, id); return raw ? JSON.parse(raw) : {}; };
  const tVariant = variantField("t-variant", "t-game");
  const sVariant = variantField("s-variant", "s-game");
  const tForm = h("form.op-tournament", {
    onsubmit: (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      act(() => {
        const now = Date.now() + link.offset;
        const starts = value(form, "t-starts") ? new Date(value(form, "t-starts")) : new Date(now);
        const ends = new Date(starts.getTime() + Number(value(form, "t-hours")) * 3600e3);
        return link.call("create_tournament", { name: value(form, "t-name"), game: value(form, "t-game"), options: withVariant(options(form, "t-options"), form, "t-variant", "t-game"),
          starts_at: starts.toISOString(), ends_at: ends.toISOString() });
      }, (r) => `created ${r.tournament.name}, commitment ${r.tournament.commitment}`);
    },
    oninput: (e) => tVariant.sync(e.currentTarget),
  }, h("h2", "New tournament"), ...f("t-name", "Name", { required: true, maxlength: "100" }),
  ...f("t-game", "Game (gaps or klondike)", { value: "gaps" }), ...tVariant.nodes,
  ...f("t-options", "Options (JSON; empty: the defaults)", { placeholder: '{"redeals": 2}' }),
  ...f("t-starts", "Starts (local time; empty: now)", { type: "datetime-local" }), ...f("t-hours", "Hours", { value: "1", type: "number", min: "0.1", step: "0.1" }),
  h("button", { type: "submit" }, "Create tournament"));
  const sForm = h("form.op-schedule", {
    onsubmit: (e) => {
      e.preventDefault();
      const form = e.currentTarget;
      act(() => link.call("create_schedule", { name: value(form, "s-name"), game: value(form, "s-game"), options: withVariant(options(form, "s-options"), form, "s-variant", "s-game"),
        first_starts_at: new Date(value(form, "s-first")).toISOString(), every_s: Number(value(form, "s-every")),
        duration_s: Number(value(form, "s-duration")) }), (r) => `scheduled ${r.schedule.name}`);
    },
    oninput: (e) => sVariant.sync(e.currentTarget),
  }, h("h2", "New schedule"), ...f("s-name", "Name", { required: true, maxlength: "92" }),
  ...f("s-game", "Game", { value: "gaps" }), ...sVariant.nodes,
  ...f("s-options", "Options (JSON; empty: the defaults)", { placeholder: '{"redeals": 2}' }),
  ...f("s-first", "First start (local time)", { type: "datetime-local", required: true }),
  ...f("s-every", "Every (seconds; a day is 86400)", { value: "86400", type: "number", min: "60" }),
  ...f("s-duration", "Duration (seconds)", { value: "3600", type: "number", min: "1" }),
  h("button", { type: "submit" }, "Create schedule"));
  fill(main, h("div.operator", h("h1", "Operator"), msg, h("div.op-forms", tForm, sForm), lists, fair.el));
  await load();
  return () => {};
}
