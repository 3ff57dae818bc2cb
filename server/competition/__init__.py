"""Competition logic: tournaments, clocks, ranking."""
