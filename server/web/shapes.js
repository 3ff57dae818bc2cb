// What the verifier reads, before anything is compared: the shapes of records and bundles
// (server/audit/records.py's models, with pydantic's messages; unknown fields are ignored)
// and their limits (server/audit/untrusted.py). Anything else is Unreadable, in one line.

import { thousands } from "./pyfmt.js";
import { isObject } from "./rules.js";
import { said } from "./said.js";

export const RECORD_FORMAT = "samedeal-record/1";
export const BUNDLE_FORMAT = "samedeal-bundle/1";
const STATUSES = ["playing", "won", "lost", "resigned", "timed_out"];

/** Not a record or bundle at all. */
export class Unreadable extends Error {}

// -- shapes (server/audit/records.py's models; unknown fields are ignored) -------------
class ShapeError extends Error {
  constructor(loc, msg) {
    super(loc.length ? `${loc.join(".")}: ${msg}` : msg);
  }
}
const INT_MSG = "Input should be a valid integer";

function need(obj, key, loc) {
  if (!(key in obj)) throw new ShapeError([...loc, key], "Field required");
  return obj[key];
}
/** Strict, as the record models are: a JSON integer, never "7", 7.5 or true. */
function int(obj, key, loc, { optional = false, dflt = undefined } = {}) {
  if (!(key in obj)) {
    if (optional) return dflt;
    throw new ShapeError([...loc, key], "Field required");
  }
  const v = obj[key];
  if (v === null && optional) return null;
  if (typeof v !== "number" || !Number.isInteger(v)) throw new ShapeError([...loc, key], INT_MSG);
  return v;
}
function text(obj, key, loc, { optional = false } = {}) {
  if (!(key in obj)) {
    if (optional) return null;
    throw new ShapeError([...loc, key], "Field required");
  }
  const v = obj[key];
  if (v === null && optional) return null;
  if (typeof v !== "string") throw new ShapeError([...loc, key], "Input should be a valid string");
  return v;
}
function bool(obj, key, loc) {
  if (!(key in obj)) return false;
  if (typeof obj[key] !== "boolean") throw new ShapeError([...loc, key], "Input should be a valid boolean");
  return obj[key];
}
/** A nested model (pydantic names it when the value is not an object). */
function model(v, loc, name) {
  if (!isObject(v)) throw new ShapeError(loc, `Input should be a valid dictionary or instance of ${name}`);
  return v;
}
/** Fair play: a record's `disqualified` {reason, at}, or null. */
function disqualification(r, loc) {
  if (!("disqualified" in r) || r.disqualified === null) return null;
  const at = [...loc, "disqualified"];
  const d = model(r.disqualified, at, "Disqualification");
  return { reason: text(d, "reason", at), at: text(d, "at", at) };
}
/** Fair play and deleted accounts: a bundle's `amendments` [{kind, player,
 * reason, player_id, at}] in order; what each kind needs is checked by amended.js. */
function amendmentsOf(b) {
  if (!("amendments" in b)) return [];
  return list(b.amendments, ["amendments"]).map((a, i) => {
    const at = ["amendments", i];
    model(a, at, "Amendment");
    return {
      kind: "kind" in a ? text(a, "kind", at) : "disqualification",
      player: text(a, "player", at, { optional: true }),
      reason: text(a, "reason", at, { optional: true }),
      player_id: int(a, "player_id", at, { optional: true, dflt: null }),
      at: text(a, "at", at),
    };
  });
}
function dict(v, loc) {
  if (!isObject(v)) throw new ShapeError(loc, "Input should be a valid dictionary");
  return v;
}
function list(v, loc) {
  if (!Array.isArray(v)) throw new ShapeError(loc, "Input should be a valid list");
  return v;
}

function tournamentShape(v, loc) {
  const t = dict(v, loc);
  const out = { id: int(t, "id", loc), name: text(t, "name", loc), game: text(t, "game", loc) };
  out.options = "options" in t ? dict(t.options, [...loc, "options"]) : {};
  out.commitment = text(t, "commitment", loc);
  need(t, "seed", loc);
  out.seed = text(t, "seed", loc, { optional: true });
  out.starts_at = text(t, "starts_at", loc);
  out.ends_at = text(t, "ends_at", loc);
  out.time_limit_s = int(t, "time_limit_s", loc, { optional: true, dflt: null });
  out.deal_attempt = int(t, "deal_attempt", loc, { optional: true, dflt: 0 });
  out.solution = null;
  if ("solution" in t && t.solution !== null) {
    out.solution = list(t.solution, [...loc, "solution"]).map((a, i) => dict(a, [...loc, "solution", i]));
  }
  out.closed_at = text(t, "closed_at", loc, { optional: true });
  out.beacon = null;
  if ("beacon" in t && t.beacon !== null) out.beacon = beaconShape(t.beacon, [...loc, "beacon"]);
  out.club = int(t, "club", loc, { optional: true, dflt: null });
  out.battle = null;
  if ("battle" in t && t.battle !== null) out.battle = battleShape(t.battle, [...loc, "battle"]);
  return out;
}

/** v1.4: a team battle's {clubs: [id...], counted}. */
function battleShape(v, loc) {
  const b = model(v, loc, "RecordBattle");
  const clubs = list(need(b, "clubs", loc), [...loc, "clubs"]).map((_, i, all) => int(all, i, [...loc, "clubs"]));
  return { clubs, counted: int(b, "counted", loc) };
}

/** v1.4: a battle bundle's `clubs` [{club, name, score, counted_ranks}], or null. */
function clubsOf(b) {
  if (!("clubs" in b) || b.clubs === null) return null;
  return list(b.clubs, ["clubs"]).map((v, i) => {
    const at = ["clubs", i];
    const c = model(v, at, "ClubLine");
    const club = int(c, "club", at);
    const name = text(c, "name", at);
    const score = int(c, "score", at);
    const ranks = list(need(c, "counted_ranks", at), [...at, "counted_ranks"]);
    return { club, name, score, counted_ranks: ranks.map((_, k) => int(ranks, k, [...at, "counted_ranks"])) };
  });
}

function beaconShape(v, loc) {
  if (!isObject(v)) throw new ShapeError(loc, "Input should be a valid dictionary or instance of RecordBeacon");
  return {
    network: text(v, "network", loc), chain_hash: text(v, "chain_hash", loc), round: int(v, "round", loc),
    signature: text(v, "signature", loc, { optional: true }),
    previous_signature: text(v, "previous_signature", loc, { optional: true }),
  };
}

function recordShape(v, loc) {
  const r = dict(v, loc);
  if (r.format !== RECORD_FORMAT) throw new ShapeError([...loc, "format"], `Input should be '${RECORD_FORMAT}'`);
  const tournament = tournamentShape(need(r, "tournament", loc), [...loc, "tournament"]);
  const p = dict(need(r, "player", loc), [...loc, "player"]);
  const player = {
    id: int(p, "id", [...loc, "player"]), name: text(p, "name", [...loc, "player"]), bot: bool(p, "bot", [...loc, "player"]),
  };
  const startedAt = text(r, "started_at", loc);
  const actions = list(need(r, "actions", loc), [...loc, "actions"]).map((a, i) => {
    const at = [...loc, "actions", i];
    dict(a, at);
    return { seq: int(a, "seq", at), at_ms: int(a, "at_ms", at), action: dict(need(a, "action", at), [...at, "action"]) };
  });
  const res = dict(need(r, "result", loc), [...loc, "result"]);
  const rl = [...loc, "result"];
  const status = text(res, "status", rl);
  if (!STATUSES.includes(status)) {
    throw new ShapeError([...rl, "status"], "Input should be 'playing', 'won', 'lost', 'resigned' or 'timed_out'");
  }
  const result = {
    status, progress: int(res, "progress", rl), resets: int(res, "resets", rl),
    time_ms: int(res, "time_ms", rl), score: int(res, "score", rl),
  };
  const logHash = text(r, "log_hash", loc, { optional: true });
  return {
    tournament, player, started_at: startedAt, actions, result, log_hash: logHash, par: parShape(r, loc),
    disqualified: disqualification(r, loc), club: int(r, "club", loc, { optional: true, dflt: null }),
  };
}

/** A standings row's `par` ({progress, resets}), or null (absent, or none yet). */
function rowPar(r, at) {
  if (!("par" in r) || r.par === null) return null;
  const pl = [...at, "par"];
  const p = dict(r.par, pl);
  return { progress: int(p, "progress", pl), resets: int(p, "resets", pl) };
}

/** A record's `par` ({progress, resets, line}), or null when the record has none. */
function parShape(r, loc) {
  if (!("par" in r) || r.par === null) return null;
  const pl = [...loc, "par"];
  const p = dict(r.par, pl);
  const line = list(need(p, "line", pl), [...pl, "line"]).map((a, i) => dict(a, [...pl, "line", i]));
  return { progress: int(p, "progress", pl), resets: int(p, "resets", pl), line };
}

export const LIMITS = { maxRecords: 100000, maxActions: 1000000 };

/** A record's shape (verify._record): its number of actions first, then its fields. */
export function recordWithin(data, what, where) {
  const actions = isObject(data) ? data.actions : undefined;
  if (Array.isArray(actions) && actions.length > LIMITS.maxActions) {
    const params = { at: where ? where + ": " : "", n: thousands(actions.length), max: thousands(LIMITS.maxActions) };
    throw new Unreadable(malformed(what, said("audit.unreadable.actions_over", params, `${params.at}${params.n} actions, the limit is ${params.max}`)));
  }
  const record = parse(() => recordShape(data, where ? where.split(".").map((p) => (/^\d+$/.test(p) ? +p : p)) : []), data, what);
  solutionWithin(record.tournament, what);
  if (record.par !== null && record.par.line.length > LIMITS.maxActions) {
    const params = { n: thousands(record.par.line.length), max: thousands(LIMITS.maxActions) };
    throw new Unreadable(malformed(what, said("audit.unreadable.par_over", params, `a par line of ${params.n} steps, the limit is ${params.max}`)));
  }
  return record;
}

function solutionWithin(t, what) {
  if (t.solution !== null && t.solution.length > LIMITS.maxActions) {
    const params = { n: thousands(t.solution.length), max: thousands(LIMITS.maxActions) };
    throw new Unreadable(malformed(what, said("audit.unreadable.solution_over", params, `a solution of ${params.n} steps, the limit is ${params.max}`)));
  }
}

/** The bundle's own fields, then every record's shape, before anything is compared. */
export function bundleWithin(b) {
  if (Array.isArray(b.records) && b.records.length > LIMITS.maxRecords) {
    const params = { n: thousands(b.records.length), max: thousands(LIMITS.maxRecords) };
    throw new Unreadable(said("audit.unreadable.records", params, `bundle has ${params.n} records, the limit is ${params.max}`));
  }
  const head = parse(() => {
    const tournament = tournamentShape(need(b, "tournament", []), ["tournament"]);
    const records = list(need(b, "records", []), ["records"]);
    const rows = list(need(b, "standings", []), ["standings"]).map((r, i) => {
      const at = ["standings", i];
      dict(r, at);
      return {
        rank: rankOf(r, at), player: text(r, "player", at), status: text(r, "status", at),
        progress: int(r, "progress", at), resets: int(r, "resets", at),
        time_ms: int(r, "time_ms", at), score: int(r, "score", at),
        bot: bool(r, "bot", at), disqualified: text(r, "disqualified", at, { optional: true }),
        par: rowPar(r, at), club: int(r, "club", at, { optional: true, dflt: null }),
      };
    });
    const logRootClaimed = text(b, "log_root", [], { optional: true });
    const amendments = amendmentsOf(b);
    return { tournament, records, standings: rows, log_root: logRootClaimed, amendments, clubs: clubsOf(b) };
  }, b, "bundle");
  solutionWithin(head.tournament, "bundle");
  head.records = head.records.map((r, i) => recordWithin(r, "bundle", `records.${i}`));
  return head;
}

/** A row's rank: an integer, or null for a disqualified entry; required. */
function rankOf(r, at) {
  need(r, "rank", at);
  return r.rank === null ? null : int(r, "rank", at);
}

/** "`what` ("record" or "bundle") is malformed: `detail`", the frame said in the page's
 * language, `detail` (pydantic's field path and words, or a limit said) kept as it is
 * (server/audit/verify.py `malformed`, docs/I18N.md). */
function malformed(what, detail) {
  const noun = said(`audit.unreadable.what.${what}`, {}, what);
  return said("audit.unreadable.malformed", { what: noun, detail }, `${what} is malformed: ${detail}`);
}

function parse(shape, data, what) {
  try {
    return shape(data);
  } catch (exc) {
    if (exc instanceof ShapeError) throw new Unreadable(malformed(what, exc.message));
    throw exc;
  }
}
