// Time arithmetic of COMPETITION.md in whole milliseconds (server/domain/timing.py), on
// microseconds since the epoch so that ISO times with microseconds floor as Python does.

import { pyRepr } from "./cards.js";

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/i;

/** Microseconds since the epoch of an ISO 8601 time (naive = UTC); RangeError if unreadable. */
export function parseIso(text) {
  const m = typeof text === "string" ? ISO.exec(text) : null;
  if (!m) throw new RangeError(`Invalid isoformat string: ${pyRepr(text)}`);
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", tz = ""] = m;
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  const check = new Date(ms);
  if (check.getUTCDate() !== +d || check.getUTCMonth() !== +mo - 1 || +h > 23 || +mi > 59 || +s > 59) {
    throw new RangeError(`Invalid isoformat string: ${pyRepr(text)}`);
  }
  let us = ms * 1000 + (frac ? Math.floor(+(frac + "000000").slice(0, 6)) : 0);
  if (tz && tz.toUpperCase() !== "Z") {
    const sign = tz[0] === "-" ? -1 : 1;
    const digits = tz.slice(1).replace(/:/g, "");
    const off = (+digits.slice(0, 2) * 3600 + +(digits.slice(2, 4) || 0) * 60 + +(digits.slice(4, 6) || 0)) * 1e6;
    us -= sign * off;
  }
  return us;
}

export const msBetween = (startUs, endUs) => Math.floor((endUs - startUs) / 1000);

export function deadline(startUs, timeLimitS, endsUs) {
  if (timeLimitS === null || timeLimitS === undefined) return endsUs;
  return Math.min(startUs + timeLimitS * 1e6, endsUs);
}
