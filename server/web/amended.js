// Fair play in a bundle, mirroring server/audit/amended.py: which entries are
// disqualified (records' `disqualified`, the bundle's `amendments`, which must agree), and
// the standings rows that must follow: the others ranked as if they were absent, the
// disqualified after them with rank null and their reason.

import { show } from "./pyfmt.js";
import { standingsWithout } from "./ranking.js";
import { parseIso } from "./timing.js";

/** An amendment that does not fit the records (the verifier turns it into a Mismatch). */
export class Difference extends Error {}

function time(text, what, Unreadable) {
  try {
    return parseIso(text);
  } catch (exc) {
    throw new Unreadable(`${what}: its time cannot be read: ${exc.message}`);
  }
}

/** Map of player name -> reason; marks are {player, bot, disqualified, par} per record. */
export function disqualifiedOf(marks, amendments, closedAt, Unreadable) {
  const byName = new Map(marks.map((m) => [m.player, m]));
  const byId = new Map(marks.map((m) => [m.player_id, m]));
  const amended = new Set();
  const erased = new Set();
  let last = -Infinity;
  amendments.forEach((a, k) => {
    readable(k + 1, a, Unreadable);
    if (a.kind === "erasure") {
      erasure(`amendment ${k + 1} (erasure of player ${a.player_id})`, a.player_id, byId, erased);
      const at = time(a.at, `amendment ${k + 1}`, Unreadable);
      if (at < last) throw new Difference(`amendment ${k + 1}: out of order, before the amendment above it`);
      last = at;
      return;
    }
    const where = `amendment ${k + 1} (${show(a.player)})`;
    const mark = byName.get(a.player);
    if (mark === undefined) throw new Difference(`${where}: the bundle has no record of that player`);
    if (amended.has(a.player)) throw new Difference(`${where}: the player is amended twice`);
    amended.add(a.player);
    const d = mark.disqualified;
    if (d === null) throw new Difference(`${where}: the player's record carries no disqualification`);
    if (d.reason !== a.reason || d.at !== a.at) {
      throw new Difference(`${where}: it says ${show(a.reason)} at ${show(a.at)}, the record ${show(d.reason)} at ${show(d.at)}`);
    }
    const at = time(a.at, where, Unreadable);
    if (at < last) throw new Difference(`${where}: out of order, before the amendment above it`);
    last = at;
  });
  if (closedAt) {
    const closed = time(closedAt, "the tournament's closed_at", Unreadable);
    for (const m of marks) {
      const d = m.disqualified;
      if (d !== null && !amended.has(m.player) && time(d.at, `record of ${show(m.player)}`, Unreadable) > closed) {
        throw new Difference(
          `record of ${show(m.player)}: disqualified at ${show(d.at)}, after the close, but the bundle has no amendment for it`,
        );
      }
    }
  }
  const out = new Map();
  for (const m of marks) if (m.disqualified !== null) out.set(m.player, m.disqualified.reason);
  return out;
}

/** An amendment of a known kind with the fields of its kind (amended._readable). */
function readable(i, a, Unreadable) {
  if (a.kind === "erasure") {
    if (a.player_id === null) throw new Unreadable(`amendment ${i}: an erasure names its player_id`);
  } else if (a.kind === "disqualification") {
    if (a.player === null || a.reason === null) throw new Unreadable(`amendment ${i}: a disqualification names its player and reason`);
  } else throw new Unreadable(`amendment ${i}: an amendment of unknown kind ${show(a.kind)}`);
}

/** An erasure names a record's player id whose record carries the pseudonym, once. */
function erasure(where, playerId, byId, erased) {
  const mark = byId.get(playerId);
  if (mark === undefined) throw new Difference(`${where}: the bundle has no record of that player id`);
  if (mark.player !== `deleted-${playerId}`) throw new Difference(`${where}: the record names ${show(mark.player)}, not deleted-${playerId}`);
  if (erased.has(playerId)) throw new Difference(`${where}: the player is erased twice`);
  erased.add(playerId);
}

/** A standings row as a bundle carries it (records.bundle_row); `par` is the record's
 * {progress, resets}, or null. */
export function bundleRow(r, bot, par = null) {
  return {
    rank: r.rank, player: r.player, status: r.status, progress: r.progress, resets: r.resets,
    time_ms: r.time_ms, score: r.score, bot, disqualified: r.disqualified ?? null, par,
  };
}

/** [rows the bundle must carry, how many are disqualified]; in a `battle` each row with
 * its record's club last. */
export function expectedRows(results, marks, amendments, closedAt, Unreadable, battle = false) {
  const disqualified = disqualifiedOf(marks, amendments, closedAt, Unreadable);
  const marked = new Map(marks.map((m) => [m.player, m]));
  const rows = standingsWithout(results, disqualified).map((r) => {
    const m = marked.get(r.player);
    const row = bundleRow(r, m.bot, m.par ?? null);
    return battle ? { ...row, club: m.club } : row;
  });
  return [rows, disqualified.size];
}
