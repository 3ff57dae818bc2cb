// Standings from results (COMPETITION.md), mirroring server/domain/ranking.py: progress
// (more first), resets (fewer first), time_ms (less first); equal keys share a rank; rows
// within a shared rank by name, case-insensitively, then by the name itself.

const fold = (s) => s.toLowerCase();
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

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
