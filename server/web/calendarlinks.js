// "Add to calendar" (issue 39): a scheduled tournament's own event and the series feed,
// iCalendar files the server writes in the page's language with an alarm 15 minutes
// before the start (server/net/schedule_http.py; ?remind=N changes it).

import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

/** The link to one tournament's event (/tournaments/ID/calendar.ics). */
export function addToCalendar(id) {
  return h("a.calendar-add", { href: `/tournaments/${id}/calendar.ics?lang=${encodeURIComponent(lang())}`, download: `tournament-${id}.ics` }, t("web.calendar.add"));
}

/** The link to the feed of every scheduled tournament and series occurrence. */
export function calendarFeed() {
  return h("a.calendar-feed", { href: `/calendar.ics?lang=${encodeURIComponent(lang())}` }, t("web.calendar.feed"));
}
