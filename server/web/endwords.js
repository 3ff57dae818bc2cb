// Words for an ending: when a tournament closed (at its end or early) and why a game
// is over, in the viewer's language and time zone.
import { localTime } from "./dom.js";
import { dateOnly, timeOnly, t as tr } from "./i18n.js";

const END_KEYS = { won: "web.play.end.won", lost: "web.play.end.lost", resigned: "web.play.end.resigned", timed_out: "web.play.end.timed_out" };

/** When a tournament closed: at its end, or early (an operator's close) — then both. */
export function closedText(closedAt, endsAt) {
  if (!closedAt) return tr("web.closed_at", { when: localTime(endsAt) });
  const early = Date.parse(closedAt) < Date.parse(endsAt) - 1000;
  const end = dateOnly(closedAt) === dateOnly(endsAt) ? timeOnly(endsAt) : localTime(endsAt); // the day said once
  const key = dateOnly(closedAt) === dateOnly(endsAt) ? "web.closed_early_at_time" : "web.closed_early_at";
  return early ? tr(key, { when: localTime(closedAt), end }) : tr("web.closed_at", { when: localTime(closedAt) });
}

/** Why a game is over. A game that timed out before its deadline was ended by the
 * organiser's close: say that, not "Time is up". */
export function endText(st, summary) {
  if (st.status === "timed_out") {
    const ended = Date.parse(st.started_at) + st.time_ms;
    if (ended < Date.parse(st.deadline) - 1000) {
      const at = summary && summary.closed_at ? summary.closed_at : new Date(ended).toISOString();
      return tr("web.play.end.closed_by_organiser", { when: localTime(at) });
    }
  }
  return END_KEYS[st.status] ? tr(END_KEYS[st.status]) : st.status;
}
