// Standings from results (COMPETITION.md), mirroring server/domain/ranking.py: progress
// (more first), resets (fewer first), time_ms (less first); equal keys share a rank; rows
// within a shared rank by name, case-insensitively (the code points of the name's NFC form
// lower-cased, as server/domain/names.py's name_key), then by the name itself.

/** A name's key: two names are one player when their keys are equal. */
export const nameKey = (s) => s.normalize("NFC").toLowerCase();
const fold = nameKey;
/** Strings compared code point by code point (`<` compares UTF-16 units, which puts an
 * astral character before U+E000..U+FFFF). */
export function cmp(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
}

export function orderCompare(a, b) {
  return (
    b.progress - a.progress ||
    a.resets - b.resets ||
    a.time_ms - b.time_ms ||
    cmp(fold(a.player), fold(b.player)) ||
    cmp(a.player, b.player)
  );
}

const sameKey = (a, b) => a.progress === b.progress && a.resets === b.resets && a.time_ms === b.time_ms;

/** Ranked rows {rank, player, status, progress, resets, time_ms, score}, best first. */
export function standings(results) {
  const ordered = results.slice().sort(orderCompare);
  const rows = [];
  ordered.forEach((r, i) => {
    const rank = rows.length && sameKey(ordered[i - 1], r) ? rows[rows.length - 1].rank : i + 1;
    rows.push({
      rank, player: r.player, status: r.status, progress: r.progress,
      resets: r.resets, time_ms: r.time_ms, score: r.score,
    });
  });
  return rows;
}

/** The standings with the disqualified (a Map of name -> reason) taken out: the others
 * ranked as if absent, then the disqualified in the same order, rank null, with their
 * reason (ranking.standings_without). */
export function standingsWithout(results, disqualified) {
  const ranked = results.filter((r) => !disqualified.has(r.player));
  const out = results.filter((r) => disqualified.has(r.player)).sort(orderCompare);
  return standings(ranked).concat(
    out.map((r) => ({
      rank: null, player: r.player, status: r.status, progress: r.progress,
      resets: r.resets, time_ms: r.time_ms, score: r.score, disqualified: disqualified.get(r.player),
    })),
  );
}
