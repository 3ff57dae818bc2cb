// Club events (PROTOCOL v1.4 "Club events", "Visibility", "Team battles"): a tournament
// belongs to a club by SUMMARY's `club`, or to each club its `battle` names. The club page
// lists its upcoming ones; the lobby, for a signed-in member, its clubs' events on top
// (unlisted ones included: the server lists them only to members). An entry code shows
// only where the server sent it (to the creator, the club's leaders and operators). The
// club's leaders close its events and cancel its schedules here, asked first.

import { fill, h } from "./dom.js";
import { dateRange, t } from "./i18n.js";
import { asking, refusal } from "./clubtools.js";

/** The club ids a tournament is an event of (none for an event of no club). */
export function clubsOf(summary) {
  if (summary.battle && Array.isArray(summary.battle.clubs)) return summary.battle.clubs;
  return summary.club ? [summary.club] : [];
}

/** The tags of a club event: its club(s) by name where known, unlisted, code needed. */
export function eventTags(summary, names = new Map()) {
  const clubs = clubsOf(summary);
  return [
    summary.battle ? h("span.tag.battle", t("web.clubevent.battle")) : null,
    clubs.filter((id) => names.has(id)).map((id) => [" ", h("a.tag.club", { href: `/clubs/${id}`, "data-nav": "", translate: "no" }, names.get(id))]),
    summary.visibility === "unlisted" ? [" ", h("span.tag.unlisted", { title: t("web.clubevent.unlisted_title") }, t("web.clubevent.unlisted"))] : null,
    summary.code_required ? [" ", h("span.tag.code", t("web.clubevent.code_required"))] : null,
  ];
}

function eventItem(s, names, tool = null) {
  return h("li.club-event", { "data-id": String(s.id) },
    h("a", { href: `/t/${s.id}`, "data-nav": "", translate: "no" }, s.name), " ", h(`span.tag.st-${s.status}`, t(`web.status.${s.status}`)), " ", eventTags(s, names),
    tool ? [" ", tool] : null,
    h("p.meta.small", dateRange(s.starts_at, s.ends_at)),
    s.entry_code ? h("p.small", t("web.clubevent.entry_code"), " ", h("code.entry-code", { translate: "no" }, s.entry_code)) : null);
}

/** A leader's button that asks, then sends `type` with `fields`; `done` on success. */
function leaderTool(cls, label, question, yes, link, type, fields, msg, done) {
  return asking(cls, label, question, yes, () => link.call(type, fields).then(done, (exc) => refusal(msg, exc)));
}

/** The club page's section: the club's open and scheduled events; for its leaders
 * (`leads`), a close on each event of this club and its schedules with a cancel (the
 * server decides: "Admins and the event's leaders may close_tournament, cancel_schedule"). */
export function clubEvents(link, id, leads = false) {
  const box = h("section.club-box.club-events", h("h2", t("web.clubevent.upcoming")), h("p.muted", t("web.loading")));
  const msg = h("p.error.club-events-msg", { role: "alert" });
  const load = () => Promise.all([link.call("tournaments"), leads ? link.call("schedules") : { items: [] }]).then(([m, ss]) => {
    const items = m.items.filter((s) => s.status !== "closed" && clubsOf(s).includes(id));
    const schedules = ss.items.filter((s) => s.club === id && !s.cancelled);
    const close = (s) => leaderTool("close-event", t("web.op.close_now"), t("web.op.close_ask", { name: s.name }), t("web.op.close_yes"),
      link, "close_tournament", { tournament: s.id }, msg, load);
    fill(box, h("h2", t("web.clubevent.upcoming"), h("span.count", String(items.length))), msg,
      items.length ? h("ul.event-list", items.map((s) => eventItem(s, new Map(), leads && s.club === id ? close(s) : null))) : h("p.muted", t("web.clubevent.none")),
      schedules.length ? [h("h2", t("web.op.schedules")), h("ul.club-schedules", schedules.map((s) => h("li.club-schedule", { "data-schedule": String(s.id) },
        h("strong", { translate: "no" }, s.name), " ",
        leaderTool("cancel-schedule", t("web.cancel"), t("web.op.cancel_ask", { name: s.name }), t("web.op.cancel_yes"),
          link, "cancel_schedule", { schedule: s.id }, msg, load))))] : null);
  }, (exc) => fill(box, h("h2", t("web.clubevent.upcoming")), h("p.muted", exc.message)));
  load();
  return box;
}

/** The lobby's "Your clubs' events": the open and scheduled events of the clubs in
 * `mine` (CLUBs of `clubs` with `mine: true`), or nothing when there are none. */
export function lobbyClubEvents(items, mine) {
  const names = new Map(mine.map((c) => [c.id, c.name]));
  const ours = items.filter((s) => s.status !== "closed" && clubsOf(s).some((id) => names.has(id)));
  if (!ours.length) return null;
  return h("section.group.club-events-lobby", h("h2", t("web.clubevent.yours"), h("span.count", String(ours.length))),
    h("ul.event-list", ours.map((s) => eventItem(s, names))));
}
