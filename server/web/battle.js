// A team battle in a bundle, mirroring server/audit/battle.py (RECORD.md "Additions
// (v1.4): clubs and team battles") and server/domain/club_score.py: every record carries a
// club of battle.clubs, every standings row its record's, and `clubs` holds each named
// club once with each score, counted_ranks and the order following from the standings.

import { show } from "./pyfmt.js";
import { said } from "./said.js";

/** The clubs' table from rows [rank, club] best first (club_score.table). */
export function clubTable(rows, ranked, clubs, counted) {
  const ranks = new Map(clubs.map(([club]) => [club, []]));
  let open = ranks.size;
  for (const [rank, club] of open && counted > 0 ? rows : []) {
    if (rank === null) break;
    const got = club === null ? undefined : ranks.get(club);
    if (got === undefined || got.length >= counted) continue;
    got.push(rank);
    if (got.length === counted && --open === 0) break;
  }
  const lines = clubs.map(([club, name]) => {
    const r = ranks.get(club);
    return { club, name, score: r.length * (ranked + 1) - r.reduce((a, b) => a + b, 0), counted_ranks: r };
  });
  const best = (l) => (l.counted_ranks.length ? l.counted_ranks[0] : 0);
  lines.sort(
    (a, b) =>
      b.score - a.score || !a.counted_ranks.length - !b.counted_ranks.length || best(a) - best(b) || a.club - b.club,
  );
  return lines;
}

/** The record's club as its row must repeat it (battle.club_of); `fail` makes the error. */
export function clubOf(t, record, who, fail) {
  if (t.battle === null) return null;
  if (record.club === null || !t.battle.clubs.includes(record.club)) {
    throw fail(`${who}: its club ${show(record.club)} is not one of the battle's clubs ${show(t.battle.clubs)}`);
  }
  return record.club;
}

const line = (l) => ({ club: l.club, score: l.score, counted_ranks: l.counted_ranks });
const same = (a, b) =>
  a.club === b.club && a.score === b.score && a.counted_ranks.length === b.counted_ranks.length &&
  a.counted_ranks.every((r, i) => r === b.counted_ranks[i]);

/** The bundle's `clubs` against the table the expected rows give (battle.check_clubs). */
export function checkClubs(bundle, rows, report, fail) {
  const battle = bundle.tournament.battle;
  if (battle === null) {
    if (bundle.clubs !== null) throw fail("bundle: it carries clubs, but the tournament is no battle");
    return;
  }
  if (bundle.clubs === null) throw fail("bundle: the tournament is a battle, but the bundle carries no clubs");
  const named = [...new Set(battle.clubs)];
  const listed = bundle.clubs.map((l) => l.club);
  const sorted = (xs) => xs.slice().sort((a, b) => a - b).join(",");
  if (sorted(listed) !== sorted(named)) {
    throw fail(`bundle: clubs lists the clubs ${show(listed)}, the battle names ${show(named)}`);
  }
  const names = new Map(bundle.clubs.map((l) => [l.club, l.name]));
  const ranked = rows.filter((r) => r.rank !== null).length;
  const want = clubTable(rows.map((r) => [r.rank, r.club]), ranked, named.map((c) => [c, names.get(c)]), battle.counted);
  want.forEach((w, i) => {
    const got = line(bundle.clubs[i]);
    if (!same(got, w)) {
      throw fail(`clubs line ${i + 1} is ${show(got)}, the standings give ${show(line(w))}`);
    }
  });
  const params = { n: named.length, counted: battle.counted };
  report.checked.push(said("audit.battle", params,
    `battle: the ${named.length} clubs' scores and order follow from the standings, ${battle.counted} entries counted per club`));
}
