// What the browser keeps: the player's token (localStorage only, never in a URL) and the
// receipts, the log_hash of the last acknowledged STATE of each game (RECORD.md).

const TOKEN = "samedeal.token";
const NAME = "samedeal.name";
const RECEIPTS = "samedeal.receipts";

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}
function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the game goes on without it */
  }
}

export const account = {
  get token() {
    return read(TOKEN, null);
  },
  get name() {
    return read(NAME, null);
  },
  save(token, name) {
    write(TOKEN, token);
    write(NAME, name);
  },
  forget() {
    localStorage.removeItem(TOKEN);
    localStorage.removeItem(NAME);
  },
};

/** Receipts by "tournament/player": {tournament, player, seq, log_hash, at}. */
export const receipts = {
  all() {
    return read(RECEIPTS, {});
  },
  get(tournament, player) {
    return this.all()[`${tournament}/${player}`] || null;
  },
  keep(tournament, player, seq, logHash) {
    if (typeof logHash !== "string" || !logHash) return;
    const all = this.all();
    const key = `${tournament}/${player}`;
    const old = all[key];
    if (old && old.seq > seq) return; // never go back to an older acknowledgement
    all[key] = { tournament, player, seq, log_hash: logHash, at: new Date().toISOString() };
    write(RECEIPTS, all);
  },
  of(tournament) {
    return Object.values(this.all()).filter((r) => r.tournament === tournament);
  },
};
