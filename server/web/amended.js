// Fair play in a bundle, mirroring server/audit/amended.py: which entries are
// disqualified (records' `disqualified`, the bundle's `amendments`, which must agree), and
// the standings rows that must follow: the others ranked as if they were absent, the
// disqualified after them with rank null and their reason.

import { show } from "./pyfmt.js";
import { said } from "./said.js";
import { standingsWithout } from "./ranking.js";
import { parseIso } from "./timing.js";

/** An amendment that does not fit the records (the verifier turns it into a Mismatch). */
export class Difference extends Error {}

const outOfOrder = (where) => said("audit.diff.out_of_order", { where }, `${where}: out of order, before the amendment above it`);

function time(text, what, Unreadable) {
  try {
    return parseIso(text);
  } catch (exc) {
    throw new Unreadable(said("audit.unreadable.time", { what, why: exc.message }, `${what}: its time cannot be read: ${exc.message}`));
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
      const i = k + 1;
      erasure(said("audit.amendment_erasure", { i, id: a.player_id }, `amendment ${i} (erasure of player ${a.player_id})`), a.player_id, byId, erased);
      const amendment = said("audit.amendment", { i }, `amendment ${i}`);
      const at = time(a.at, amendment, Unreadable);
      if (at < last) throw new Difference(outOfOrder(amendment));
      last = at;
      return;
    }
    const where = said("audit.amendment_of", { i: k + 1, name: show(a.player) }, `amendment ${k + 1} (${show(a.player)})`);
    const mark = byName.get(a.player);
    if (mark === undefined) throw new Difference(said("audit.diff.no_such_player", { where }, `${where}: the bundle has no record of that player`));
    if (amended.has(a.player)) throw new Difference(said("audit.diff.amended_twice", { where }, `${where}: the player is amended twice`));
    amended.add(a.player);
    const d = mark.disqualified;
    if (d === null) throw new Difference(said("audit.diff.not_disqualified", { where }, `${where}: the player's record carries no disqualification`));
    if (d.reason !== a.reason || d.at !== a.at) {
      const params = { where, reason: show(a.reason), at: show(a.at), record_reason: show(d.reason), record_at: show(d.at) };
      throw new Difference(said("audit.diff.amendment_says", params, `${where}: it says ${params.reason} at ${params.at}, the record ${params.record_reason} at ${params.record_at}`));
    }
    const at = time(a.at, where, Unreadable);
    if (at < last) throw new Difference(outOfOrder(where));
    last = at;
  });
  if (closedAt) {
    const closed = time(closedAt, said("audit.closed_at", {}, "the tournament's closed_at"), Unreadable);
    for (const m of marks) {
      const d = m.disqualified;
      const who = said("audit.record_of", { name: show(m.player) }, `record of ${show(m.player)}`);
      if (d !== null && !amended.has(m.player) && time(d.at, who, Unreadable) > closed) {
        throw new Difference(said("audit.diff.no_amendment", { who, at: show(d.at) },
          `${who}: disqualified at ${show(d.at)}, after the close, but the bundle has no amendment for it`,
        ));
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
    if (a.player_id === null) throw new Unreadable(said("audit.unreadable.erasure", { i }, `amendment ${i}: an erasure names its player_id`));
  } else if (a.kind === "disqualification") {
    if (a.player === null || a.reason === null) throw new Unreadable(said("audit.unreadable.disqualification", { i }, `amendment ${i}: a disqualification names its player and reason`));
  } else throw new Unreadable(said("audit.unreadable.amendment_kind", { i, kind: show(a.kind) }, `amendment ${i}: an amendment of unknown kind ${show(a.kind)}`));
}

/** An erasure names a record's player id whose record carries the pseudonym, once. */
function erasure(where, playerId, byId, erased) {
  const mark = byId.get(playerId);
  if (mark === undefined) throw new Difference(said("audit.diff.no_such_id", { where }, `${where}: the bundle has no record of that player id`));
  if (mark.player !== `deleted-${playerId}`) throw new Difference(said("audit.diff.not_pseudonym", { where, name: show(mark.player), id: playerId }, `${where}: the record names ${show(mark.player)}, not deleted-${playerId}`));
  if (erased.has(playerId)) throw new Difference(said("audit.diff.erased_twice", { where }, `${where}: the player is erased twice`));
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
