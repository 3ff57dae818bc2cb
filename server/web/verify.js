// The in-browser verifier: a second implementation, in JavaScript, of what
// `samedeal verify` checks (server/audit/verify.py, client_cli/verify.py). Same order of
// checks, same lines, same first difference: the seed against the commitment; every action
// replayed from the deal (seq 1, 2, 3..., at_ms never decreasing); the claimed result; the
// record's log_hash (samedeal-log/1); a guaranteed Klondike solution; for a bundle its
// log_root and the standings recomputed from the results. A tournament with a public beacon
// has its round verified against the network's pinned key (beacon.js) and its deals
// replayed from the beacon's deal seed.

import { bare, oneLine, row as showRow, show } from "./pyfmt.js";
import { BUILT_IN } from "./beacon.js";
import { BeaconDifference, BeaconUnreadable, checkBeacon, dealingSeed } from "./beaconcheck.js";
import { commitment, hexToBytes } from "./drbg.js";
import { GAPS } from "./gaps.js";
import { KLONDIKE } from "./klondike.js";
import { Difference, expectedRows } from "./amended.js";
import { checkClubs, clubOf } from "./battle.js";
import { logHash, logRoot } from "./receipts.js";
import { BUNDLE_FORMAT, RECORD_FORMAT, Unreadable, bundleWithin, recordWithin } from "./shapes.js";
import { ActionError, PLAYING, TIMED_OUT, WON, isObject } from "./rules.js";
import { deadline, msBetween, parseIso } from "./timing.js";
import { nameKey } from "./ranking.js";
import { forget, said, shortened, told } from "./said.js";

export const RULES = { gaps: GAPS, klondike: KLONDIKE };
/** The first thing that differs, in one line. */
export class Mismatch extends Error {}

// -- the checks -------------------------------------------------------------------------
const who = (record) => {
  const [name, id] = [show(record.player.name), record.player.id];
  return said("audit.who", { name, id }, `record of ${name} (player ${id})`);
}

function recordOf(name) {
  return said("audit.record_of", { name }, `record of ${name}`);
};

/** {checked, notes, error} for a parsed record or bundle; throws Unreadable if neither. */
export async function verifyDocument(data, { networks = BUILT_IN } = {}) {
  const fmt = isObject(data) ? data.format : undefined;
  const report = { checked: [], notes: [], error: null, ok: true };
  forget();
  try {
    if (fmt === RECORD_FORMAT) {
      const record = recordWithin(data, "record", "");
      const ctx = await verifyTournament(record.tournament, report, networks);
      const outcome = await replayRecord(record, ctx);
      finishRecord(record, outcome, report);
      if (record.log_hash === null) report.notes.push(said("audit.record_no_receipts", { who: who(record) }, `${who(record)} carries no receipts: no log_hash (written before samedeal-log/1)`));
    } else if (fmt === BUNDLE_FORMAT) {
      await verifyBundle(bundleWithin(data), report, networks);
    } else {
      const format = fmt === undefined ? "None" : show(fmt);
      throw new Unreadable(said("audit.unreadable.format", { format }, `not a samedeal record or bundle (format ${format})`));
    }
  } catch (exc) {
    if (exc instanceof Unreadable) throw new Unreadable(shortened(exc.message, oneLine));
    if (!(exc instanceof Mismatch)) throw exc;
    report.error = shortened(exc.message, oneLine);
    report.ok = false;
  }
  return report;
}

function badSeed(t, why) {
  return new Mismatch(said("audit.diff.bad_seed", { id: t.id, why }, `tournament ${t.id}: bad seed: ${why}`));
}

function parseSeed(t) {
  if (t.seed.length !== 64) throw badSeed(t, `a seed is 64 hex characters, got ${t.seed.length}`);
  const bad = t.seed.search(/[^0-9a-fA-F]/);
  if (bad >= 0) {
    throw badSeed(t, `non-hexadecimal number found in fromhex() arg at position ${bad}`);
  }
  return hexToBytes(t.seed);
}

/** Seed against commitment, game, options, solution: the rules, options and seed. */
async function verifyTournament(t, report, networks = BUILT_IN, dealt = true) {
  if (t.seed === null) throw new Mismatch(said("audit.diff.seed_hidden", { id: t.id }, `tournament ${t.id}: the seed is not revealed`));
  let seed = parseSeed(t);
  const made = await commitment(seed);
  if (made !== t.commitment) {
    const claimed = bare(t.commitment);
    throw new Mismatch(said("audit.diff.commitment", { id: t.id, made, claimed }, `tournament ${t.id}: sha256(seed) is ${made}, not the commitment ${claimed}`));
  }
  report.checked.push(said("audit.commitment", { id: t.id }, `tournament ${t.id}: sha256(seed) equals the commitment`));
  try {
    seed = await checkBeacon(t, seed, report, networks, dealt);
  } catch (exc) {
    if (exc instanceof BeaconDifference) throw new Mismatch(exc.message);
    if (exc instanceof BeaconUnreadable) throw new Unreadable(exc.message);
    throw exc;
  }
  const rules = Object.hasOwn(RULES, t.game) ? RULES[t.game] : null;
  if (!rules) throw new Mismatch(said("audit.diff.unknown_game", { id: t.id, game: show(t.game) }, `tournament ${t.id}: unknown game ${show(t.game)}`));
  let options;
  try {
    options = rules.parseOptions(t.options);
  } catch (exc) {
    throw new Mismatch(said("audit.diff.options", { id: t.id, why: exc.message }, `tournament ${t.id}: ${exc.message}`));
  }
  const ctx = { t, rules, options, seed, deals: new Map() };
  if (t.solution !== null) await verifySolution(ctx, report);
  return ctx;
}

async function verifySolution({ t, rules, options, seed }, report) {
  let state = await rules.newGame(seed, options, { playerId: 0, dealAttempt: t.deal_attempt });
  for (let i = 0; i < t.solution.length; i++) {
    try {
      state = await state.apply(rules.parseAction(t.solution[i]));
    } catch (exc) {
      if (exc instanceof ActionError) throw new Mismatch(said("audit.diff.solution_step", { id: t.id, step: i + 1, why: told(exc.reason, exc.message) }, `tournament ${t.id}: solution step ${i + 1}: ${exc.message}`));
      throw exc;
    }
  }
  if (state.status !== WON) throw new Mismatch(said("audit.diff.solution_loses", { id: t.id }, `tournament ${t.id}: the stored solution does not win the deal`));
  report.checked.push(said("audit.solution", { id: t.id, n: t.solution.length, attempt: t.deal_attempt },
    `tournament ${t.id}: the stored solution (${t.solution.length} actions) wins deal attempt ${t.deal_attempt}`));
}

/** The dealt position, shared by every record of the tournament (the deal is the same
 * for all; Gaps redeals are drawn per player later, from the player's own stream). */
function dealt(ctx, playerId) {
  const { rules, options, seed, t } = ctx;
  if (rules === GAPS) {
    if (!ctx.deals.has("gaps")) {
      ctx.deals.set("gaps", rules.newGame(seed, options, { playerId: 0, dealAttempt: t.deal_attempt }));
    }
    return ctx.deals.get("gaps").then((s) => s.forPlayer(playerId));
  }
  const key = `klondike/${t.deal_attempt}`;
  if (!ctx.deals.has(key)) ctx.deals.set(key, rules.newGame(seed, options, { dealAttempt: t.deal_attempt }));
  return ctx.deals.get(key);
}

/** Replay one record: {state} or {mismatch}; never throws a Mismatch itself, so records
 * can be replayed side by side and their differences reported in document order. */
async function replayRecord(record, ctx) {
  const w = who(record);
  try {
    let state = await dealt(ctx, record.player.id);
    let last = 0;
    for (let i = 0; i < record.actions.length; i++) {
      const entry = record.actions[i];
      if (entry.seq !== i + 1) throw new Mismatch(said("audit.diff.seq", { who: w, expected: i + 1, seq: entry.seq }, `${w}: expected seq ${i + 1}, found seq ${entry.seq}`));
      const where = `${w}, seq ${entry.seq}`;
      if (entry.at_ms < last) throw new Mismatch(said("audit.diff.at_ms", { who: w, seq: entry.seq, at_ms: entry.at_ms, last }, `${where}: at_ms ${entry.at_ms} is before the previous ${last}`));
      last = entry.at_ms;
      try {
        const next = state.apply(ctx.rules.parseAction(entry.action));
        state = next instanceof Promise ? await next : next;
      } catch (exc) {
        if (exc instanceof ActionError) {
          const params = { who: w, seq: entry.seq, action: show(entry.action), why: told(exc.reason, exc.message) };
          throw new Mismatch(said("audit.diff.illegal", params, `${where}: illegal action ${show(entry.action)}: ${exc.message}`));
        }
        throw exc;
      }
    }
    const hash = await logHash(
      record.tournament.commitment, record.player.id, record.actions.map((a) => [a.seq, a.at_ms, a.action]),
    );
    return { state, hash, par: record.par === null ? null : await replayPar(record, ctx) };
  } catch (exc) {
    if (exc instanceof Mismatch) return { mismatch: exc };
    throw exc;
  }
}

/** The par line replayed from the deal under the record's player id: {state} or
 * {mismatch} (verify.verify_par). */
async function replayPar(record, ctx) {
  const w = who(record);
  let state = await dealt(ctx, record.player.id);
  for (let i = 0; i < record.par.line.length; i++) {
    const raw = record.par.line[i];
    try {
      const next = state.apply(ctx.rules.parseAction(raw));
      state = next instanceof Promise ? await next : next;
    } catch (exc) {
      if (exc instanceof ActionError) {
        const params = { who: w, step: i + 1, action: show(raw), why: told(exc.reason, exc.message) };
        return { mismatch: new Mismatch(said("audit.diff.par_step", params, `${w}: par line step ${i + 1}: illegal action ${show(raw)}: ${exc.message}`)) };
      }
      throw exc;
    }
  }
  return { state };
}

/** verify.verify_par's checks on a replayed par line, in the same order. */
function finishPar(record, outcome, report) {
  const par = record.par;
  if (par === null) return;
  const w = who(record);
  if (outcome.mismatch) throw outcome.mismatch;
  const { state } = outcome;
  if (state.progress !== par.progress || state.resets !== par.resets) {
    const params = { who: w, progress: par.progress, resets: par.resets, reached: state.progress, reached_resets: state.resets };
    throw new Mismatch(said("audit.diff.par_reaches", params,
      `${w}: par claims progress ${par.progress}, resets ${par.resets}; its line reaches progress ${state.progress}, resets ${state.resets}`,
    ));
  }
  const r = record.result;
  if (par.progress < r.progress || (par.progress === r.progress && par.resets > r.resets)) {
    throw new Mismatch(said("audit.diff.par_worse", { who: w, progress: par.progress, resets: par.resets },
      `${w}: par (progress ${par.progress}, resets ${par.resets}) is worse than the entry's own result`));
  }
  report.checked.push(said("audit.par", { who: w, n: par.line.length, progress: par.progress, resets: par.resets },
    `${w}: par line (${par.line.length} actions) replays legally to progress ${par.progress}, resets ${par.resets}`));
}

function same(w, what, expected, claimed) {
  if (expected !== claimed) {
    const params = { who: w, field: what, claimed: show(claimed), expected: show(expected) };
    throw new Mismatch(said("audit.diff.result", params, `${w}: result ${what} is ${show(claimed)}, the replay gives ${show(expected)}`));
  }
}

function expectedTimeMs(record, status, w) {
  const t = record.tournament;
  if (status !== TIMED_OUT) return record.actions.length ? record.actions[record.actions.length - 1].at_ms : 0;
  try {
    const started = parseIso(record.started_at);
    let end = parseIso(t.ends_at);
    if (t.closed_at) end = Math.min(end, parseIso(t.closed_at));
    return msBetween(started, deadline(started, t.time_limit_s, end));
  } catch (exc) {
    throw new Unreadable(said("audit.unreadable.times", { who: w, why: exc.message }, `${w}: its times cannot be read: ${exc.message}`));
  }
}

/** Compare the claimed result and log hash with the replay's; returns [result, hash]. */
function finishRecord(record, outcome, report) {
  if (outcome.mismatch) throw outcome.mismatch;
  const { state, hash } = outcome;
  const w = who(record);
  const r = record.result;
  const status = state.status !== PLAYING ? state.status : TIMED_OUT;
  same(w, "status", status, r.status);
  same(w, "progress", state.progress, r.progress);
  same(w, "resets", state.resets, r.resets);
  same(w, "score", state.score, r.score);
  same(w, "time_ms", expectedTimeMs(record, status, w), r.time_ms);
  if (record.log_hash !== null && record.log_hash.toLowerCase() !== hash) {
    const claimed = bare(record.log_hash);
    throw new Mismatch(said("audit.diff.log_hash", { who: w, made: hash, claimed }, `${w}: the log hash differs: its actions give ${hash}, the record claims ${claimed}`));
  }
  const word = said(`audit.status.${r.status}`, {}, r.status);
  const params = { who: w, n: record.actions.length, status: word, progress: r.progress, resets: r.resets, ms: r.time_ms };
  report.checked.push(said(record.log_hash === null ? "audit.replayed" : "audit.replayed_chained", params,
    `${w}: ${record.actions.length} actions replay legally; result ${r.status}, progress ${r.progress}, ` +
      `resets ${r.resets}, time ${r.time_ms} ms` + (record.log_hash === null ? "" : "; log_hash is their chain")));
  finishPar(record, outcome.par, report);
  return [{ player: record.player.name, ...r }, hash];
}

function sameTournament(a, b) {
  return canonicalValue(a) === canonicalValue(b);
}
function canonicalValue(v) {
  if (Array.isArray(v)) return "[" + v.map(canonicalValue).join(",") + "]";
  if (isObject(v)) return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonicalValue(v[k])).join(",") + "}";
  if (v === true || v === false) return v ? "1" : "0"; // Python: True == 1
  return JSON.stringify(v);
}

/** At most `limit` promises in flight; results in input order. */
async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function verifyBundle(bundle, report, networks = BUILT_IN) {
  const ctx = await verifyTournament(bundle.tournament, report, networks, bundle.records.length > 0);
  const outcomes = await pool(bundle.records, 32, (record) => replayRecord(record, ctx));
  const results = [];
  const marks = []; // fair play: each record's bot and disqualification
  const chains = [];
  const seen = new Set();
  const seenIds = new Set();
  bundle.records.forEach((record, i) => {
    const name = show(record.player.name);
    if (!sameTournament(record.tournament, bundle.tournament)) {
      throw new Mismatch(said("audit.diff.tournament_differs", { who: recordOf(name) }, `record of ${name}: its tournament differs from the bundle's`));
    }
    if (seen.has(nameKey(record.player.name))) throw new Mismatch(said("audit.diff.player_twice", { who: recordOf(name) }, `record of ${name}: the player appears twice`));
    if (seenIds.has(record.player.id)) throw new Mismatch(said("audit.diff.player_id_twice", { who: who(record) }, `${who(record)}: the player id appears twice`));
    seen.add(nameKey(record.player.name));
    seenIds.add(record.player.id);
    const [result, hash] = finishRecord(record, outcomes[i], report);
    results.push(result);
    const par = record.par === null ? null : { progress: record.par.progress, resets: record.par.resets };
    const club = clubOf(bundle.tournament, record, who(record), (m) => new Mismatch(m));
    marks.push({
      player: record.player.name, bot: record.player.bot, disqualified: record.disqualified, par,
      player_id: record.player.id, club,
    });
    chains.push([record.player.id, hash]);
  });
  const old = bundle.records.filter((r) => r.log_hash === null).length;
  if (old) {
    const n = bundle.records.length;
    report.notes.push(said("audit.records_no_receipts", { old, n }, `${old} of ${n} records carry no receipts: no log_hash (written before samedeal-log/1)`));
  }
  const root = await logRoot(chains);
  if (bundle.log_root === null) {
    report.notes.push(said("audit.bundle_no_receipts", {}, "the bundle carries no receipts: no log_root (written before samedeal-log/1)"));
  } else if (bundle.log_root.toLowerCase() !== root) {
    const claimed = bare(bundle.log_root);
    throw new Mismatch(said("audit.diff.log_root", { made: root, claimed }, `bundle: the log root differs: its records give ${root}, the bundle claims ${claimed}`));
  } else {
    report.checked.push(said("audit.log_root", { n: chains.length }, `bundle: log_root is over the ${chains.length} records' chains`));
  }
  const expected = fairStandings(bundle, results, marks, report);
  const fought = bundle.tournament.battle !== null;
  const claimed = bundle.standings.map(({ club, ...row }) => (fought ? { ...row, club } : row));
  if (expected.length !== claimed.length) {
    throw new Mismatch(said("audit.diff.rows", { n: claimed.length, want: expected.length }, `standings have ${claimed.length} rows, the records give ${expected.length}`));
  }
  for (let i = 0; i < expected.length; i++) {
    if (canonicalValue(expected[i]) !== canonicalValue(claimed[i])) {
      const [got, want] = [showRow(claimed[i]), showRow(expected[i])];
      throw new Mismatch(said("audit.diff.row", { i: i + 1, got, want }, `standings row ${i + 1} is ${got}, the records give ${want}`));
    }
  }
  report.checked.push(said("audit.standings", { n: claimed.length }, `standings: ${claimed.length} rows follow from the results`));
  checkClubs(bundle, expected, report, (m) => new Mismatch(m));
}


/** Every state of a record, from the deal to its last action (the replay viewer): the
 * states, the events between them, and the first refusal if the record is not legal. */
export async function replayStates(record) {
  const t = record.tournament;
  const rules = RULES[t.game];
  const options = rules.parseOptions(t.options);
  const seed = await dealingSeed(t);
  let state = await rules.newGame(seed, options, { playerId: record.player.id, dealAttempt: t.deal_attempt || 0 });
  const states = [state];
  let error = null;
  for (const entry of record.actions) {
    try {
      state = await state.apply(rules.parseAction(entry.action));
      states.push(state);
    } catch (exc) {
      error = `seq ${entry.seq}: ${exc.message}`;
      break;
    }
  }
  return { states, error };
}

/** The rows the results give with every amendment applied (verify._fair_standings). */
function fairStandings(bundle, results, marks, report) {
  let rows, disqualified;
  try {
    const { amendments, tournament } = bundle;
    [rows, disqualified] = expectedRows(results, marks, amendments, tournament.closed_at, Unreadable, tournament.battle !== null);
  } catch (exc) {
    if (exc instanceof Difference) throw new Mismatch(exc.message);
    throw exc;
  }
  const late = bundle.amendments.filter((a) => a.kind === "disqualification").length;
  if (disqualified) {
    report.checked.push(said("audit.fair_play", { n: disqualified, late },
      `fair play: ${disqualified} disqualified, ${late} of them by amendments after the close; the others ranked without them`));
  }
  const erasures = bundle.amendments.length - late;
  if (erasures) {
    report.checked.push(said("audit.erasures", { n: erasures }, `deleted accounts: ${erasures} erased after the close, each record under its pseudonym`));
  }
  return rows;
}
