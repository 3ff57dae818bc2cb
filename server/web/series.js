// The lobby's "Upcoming in series": every active schedule's next occurrences with a
// countdown on the server's clock and, once created, the commitment (published at least
// a period before it opens) and a link. Stops its timers when the lobby is left.

import { beaconLine } from "./beaconline.js";
import { optionsText } from "./boards.js";
import { fill, h, localTime, relative } from "./dom.js";

export function upcomingSection(link) {
  const box = h("section.series", h("h2", "Upcoming in series"), h("p.muted", "loading schedules…"));
  const load = async () => {
    try {
      const items = (await link.call("schedules")).items.filter((s) => !s.cancelled);
      fill(box, h("h2", "Upcoming in series", h("span.count", String(items.length))),
        items.length ? h("ul.schedules", items.map(row)) : h("p.muted", "no schedules"));
      tick();
    } catch (exc) {
      fill(box, h("h2", "Upcoming in series"), h("p.muted", `schedules unavailable: ${exc.message}`));
    }
  };
  const tick = () => {
    if (!box.isConnected && started) return timers.forEach(clearInterval);
    const now = link.now();
    for (const el of box.querySelectorAll(".countdown")) {
      const starts = Date.parse(el.dataset.starts);
      el.textContent = starts > now ? `opens ${relative(starts - now)}` : `running, closes ${relative(Date.parse(el.dataset.ends) - now)}`;
    }
  };
  let started = false;
  const timers = [setInterval(tick, 1000), setInterval(load, 15000)];
  load().then(() => { started = true; });
  return box;
}

function row(s) {
  return h("li.schedule", { "data-schedule": String(s.id) },
    h("div.tline", h("strong.sname", s.name), h("span.tag", `every ${period(s.every_s)}`)),
    h("p.meta", optionsText(s.game, s.options), conditionsText(s.conditions), s.beacon ? ` · public beacon (drand ${s.beacon.network})` : ""),
    h("ol.occurrences", s.next.map((o) => h("li.occurrence", { "data-k": String(o.occurrence) },
      o.id ? h("a", { href: `/t/${o.id}`, "data-nav": "" }, o.name) : h("span", o.name),
      " · ", h("span.countdown", { "data-starts": o.starts_at, "data-ends": o.ends_at }),
      ` · ${localTime(o.starts_at)}`,
      o.commitment
        ? h("p.commit.small", "commitment ", h("code", { title: "sha256 of the seed, published a period before it opens" }, o.commitment))
        : h("p.small.muted", "commitment published one period before it opens"),
      o.id ? beaconLine(o) : null))));
}

function period(s) {
  if (s % 86400 === 0) return s === 86400 ? "day" : `${s / 86400} days`;
  if (s % 3600 === 0) return s === 3600 ? "hour" : `${s / 3600} h`;
  return s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

function span(s) {
  if (s >= 86400 && s % 86400 === 0) return `${s / 86400} day${s === 86400 ? "" : "s"}`;
  if (s >= 3600 && s % 3600 === 0) return `${s / 3600} h`;
  return s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

function conditionsText(c) {
  if (!c) return "";
  const parts = [];
  if (c.bots === false) parts.push("no bots");
  if (c.min_account_age_s != null) parts.push(`accounts at least ${span(c.min_account_age_s)} old`);
  if (c.min_rated != null) parts.push(`at least ${c.min_rated} rated tournaments`);
  if (c.min_rating != null) parts.push(`rating ≥ ${c.min_rating}`);
  if (c.max_rating != null) parts.push(`rating ≤ ${c.max_rating}`);
  return parts.length ? ` · ${parts.join(", ")}` : "";
}
