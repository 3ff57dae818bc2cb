// What the analysis room and the replay page read from a closed tournament's records
// (RECORD.md): an entry's par, the reference line (par, or else the best line the players
// found), where two lines part, the first moves' distribution, a rank's percentile. Pure:
// no DOM, no network (tests/web/js/lines.test.mjs).

import { canonical } from "./receipts.js";
import { nameKey } from "./ranking.js";

/** The record's `par` ({progress, resets, line}) when present and well formed, else null. */
export function parOf(record) {
  const par = record && record.par;
  if (!par || !Array.isArray(par.line) || !Number.isInteger(par.progress) || !Number.isInteger(par.resets)) return null;
  return par;
}

/** A record that plays `line` (action objects) in `record`'s place: same tournament, same
 * player id (a Gaps redeal stream is the player's own), so replayStates() replays it. */
export function lineRecord(record, line) {
  return {
    tournament: record.tournament,
    player: record.player,
    actions: line.map((action, k) => ({ seq: k + 1, at_ms: 0, action })),
  };
}

/** The ranked rows (rank not null) in rank order, from a bundle's standings. */
export function rankedRows(standings) {
  return standings.filter((row) => Number.isInteger(row.rank)).sort((a, b) => a.rank - b.rank);
}

const byName = new WeakMap(); // bundle -> Map(lowercase name -> record), built once

/** The record of player `name` (names compare case-blind, as the server's), or null. */
export function recordOf(bundle, name) {
  if (!byName.has(bundle)) byName.set(bundle, new Map(bundle.records.map((r) => [nameKey(r.player.name), r])));
  return byName.get(bundle).get(nameKey(name)) || null;
}

/** The line everyone is compared with: the viewer's own par when the record has one, else
 * the top-ranked entry's par, else the top-ranked entry's own line ("best found").
 * {kind: "par"|"best", record (whose player the line is played under), line, owner, par}
 * or null when nobody played. */
export function reference(bundle, viewer = null) {
  const mine = viewer ? recordOf(bundle, viewer) : null;
  if (mine && parOf(mine)) return { kind: "par", record: mine, line: parOf(mine).line, owner: mine.player.name, par: parOf(mine) };
  let top = null;
  for (const row of rankedRows(bundle.standings)) {
    top = recordOf(bundle, row.player);
    if (top && top.actions.length) break;
    top = null;
  }
  if (!top) return null;
  const par = parOf(top);
  if (par) return { kind: "par", record: top, line: par.line, owner: top.player.name, par };
  return { kind: "best", record: top, line: top.actions.map((a) => a.action), owner: top.player.name, par: null };
}

/** Where `mine` (action objects) leaves `best`: {step} the 1-based step of the first
 * action that differs, or {same: true} when one line is a prefix of the other (`step` then
 * is where the shorter ends, null if equal). `sharedStream`: both lines are played under
 * the same player id; when false the comparison stops at the first redeal they share
 * (from there each player's cards are dealt by their own stream): {step: null, redeal}. */
export function parting(mine, best, sharedStream) {
  const n = Math.min(mine.length, best.length);
  for (let k = 0; k < n; k++) {
    if (canonical(mine[k]) !== canonical(best[k])) return { step: k + 1, same: false };
    if (!sharedStream && mine[k].kind === "redeal") return { step: null, same: false, redeal: k + 1 };
  }
  return { step: mine.length === best.length ? null : n + 1, same: true };
}

/** The first actions of the records, counted: [{action, key, count, share}] most played
 * first (ties by the action's text), over the records with at least one action. */
export function firstMoves(records) {
  const counts = new Map();
  let total = 0;
  for (const r of records) {
    if (!r.actions.length) continue;
    const action = r.actions[0].action;
    const key = canonical(action);
    const seen = counts.get(key) || { action, key, count: 0 };
    seen.count += 1;
    counts.set(key, seen);
    total += 1;
  }
  return [...counts.values()]
    .map((m) => ({ ...m, share: m.count / total }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
}

/** The viewer's place among the ranked rows: {rank, of, below, percentile} with
 * percentile as the player page has it (domain/ratings.py `percentile`): the share of
 * the ranked entries at or below the viewer's rank, 0..100 to one decimal (the winner:
 * 100); null when the viewer is not ranked. */
export function standing(standings, name) {
  const ranked = rankedRows(standings);
  const me = ranked.find((row) => nameKey(row.player) === nameKey(name));
  if (!me) return null;
  const below = ranked.filter((row) => row.rank > me.rank).length;
  const percentile = Math.round((1000 * (ranked.length - me.rank + 1)) / ranked.length) / 10;
  return { rank: me.rank, of: ranked.length, below, percentile };
}
