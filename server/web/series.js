// The lobby's "Upcoming in series": every active schedule's next occurrences with a
// countdown on the server's clock and, once created, the commitment (published at least
// a period before it opens) and a link. Stops its timers when the lobby is left.

import { beaconLine } from "./beaconline.js";
import { optionsText } from "./boards.js";
import { fill, h, localTime, relative } from "./dom.js";
import { duration, t, tn } from "./i18n.js";
import { calendarFeed } from "./calendarlinks.js";

export function upcomingSection(link) {
  const box = h("section.series", h("h2", t("web.series.title")), h("p.muted", t("web.series.loading")));
  const load = async () => {
    try {
      const items = (await link.call("schedules")).items.filter((s) => !s.cancelled);
      fill(box, h("h2", t("web.series.title"), h("span.count", String(items.length))),
        items.length ? h("ul.schedules", items.map(row)) : h("p.muted", t("web.series.none")), h("p.small", calendarFeed()));
      tick();
    } catch (exc) {
      fill(box, h("h2", t("web.series.title")), h("p.muted", t("web.series.unavailable", { error: exc.message })));
    }
  };
  const tick = () => {
    if (!box.isConnected && started) return timers.forEach(clearInterval);
    const now = link.now();
    for (const el of box.querySelectorAll(".countdown")) {
      const starts = Date.parse(el.dataset.starts);
      el.textContent = starts > now ? t("web.countdown.opens", { when: relative(starts - now) }) : t("web.series.running", { when: relative(Date.parse(el.dataset.ends) - now) });
    }
  };
  let started = false;
  const timers = [setInterval(tick, 1000), setInterval(load, 15000)];
  load().then(() => { started = true; });
  return box;
}

function row(s) {
  return h("li.schedule", { "data-schedule": String(s.id) },
    h("div.tline", h("strong.sname", { translate: "no" }, s.name), h("span.tag", period(s.every_s))),
    h("p.meta", optionsText(s.game, s.options), conditionsText(s.conditions), s.beacon ? [" · ", t("web.series.beacon", { network: s.beacon.network })] : ""),
    h("ol.occurrences", s.next.map((o) => h("li.occurrence", { "data-k": String(o.occurrence) },
      o.id ? h("a", { href: `/t/${o.id}`, "data-nav": "", translate: "no" }, o.name) : h("span", { translate: "no" }, o.name),
      " · ", h("span.countdown", { "data-starts": o.starts_at, "data-ends": o.ends_at }),
      ` · ${localTime(o.starts_at)}`,
      o.commitment
        ? h("details.audit.small", h("summary", t("web.audit.summary")),
          h("p.commit", t("web.commitment.label"), " ", h("code", { title: t("web.series.commitment_title"), translate: "no" }, o.commitment)),
          h("p.muted", t("web.commitment.explain")))
        : h("p.small.muted", t("web.series.commitment_later")),
      o.id ? beaconLine(o) : null))));
}

/** "every day", "every 2 days", "every hour", "every 3 h", "every 30 min". */
function period(s) {
  if (s === 86400) return t("web.series.every_day");
  if (s === 3600) return t("web.series.every_hour");
  if (s % 86400 === 0) return tn("web.series.every_days", s / 86400);
  if (s % 3600 === 0) return tn("web.series.every_hours", s / 3600);
  return t("web.series.every", { span: span(s) });
}

function span(s) {
  if (s >= 86400 && s % 86400 === 0) return duration(s * 1000);
  if (s >= 3600 && s % 3600 === 0) return duration(s * 1000);
  return duration(s * 1000);
}

function conditionsText(c) {
  if (!c) return "";
  const parts = [];
  if (c.bots === false) parts.push(t("web.series.no_bots"));
  if (c.min_account_age_s != null) parts.push(t("web.series.account_age", { span: span(c.min_account_age_s) }));
  if (c.min_rated != null) parts.push(tn("web.series.min_rated", c.min_rated));
  if (c.min_rating != null) parts.push(t("web.series.min_rating", { rating: c.min_rating }));
  if (c.max_rating != null) parts.push(t("web.series.max_rating", { rating: c.max_rating }));
  return parts.length ? ` · ${parts.join(", ")}` : "";
}
