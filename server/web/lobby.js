// /: register or sign in, and the tournaments (open, scheduled, closed) with their
// commitment, options, entrants and a countdown on the server's clock.

import { beaconLine } from "./beaconline.js";
import { optionsText } from "./boards.js";
import { $, clock, fill, h, localTime, relative } from "./dom.js";
import { ServerError } from "./net.js";
import { passkeySignIn } from "./passkeys.js";
import { upcomingSection } from "./series.js";
import { account } from "./store.js";

export async function lobbyPage(main, link, refreshAccount) {
  const accountBox = h("section.account-box");
  const lists = h("section.lists", h("p.muted", "loading tournaments…"));
  fill(main, h("div.lobby", accountBox, h("div.lobby-main", upcomingSection(link), lists))); // series (v1.3) hook
  renderAccount(accountBox, link, () => {
    refreshAccount();
    load();
  });
  let items = [];
  const load = async () => {
    try {
      items = (await link.call("tournaments")).items;
      render();
    } catch (exc) {
      fill(lists, h("p.muted", exc instanceof ServerError && exc.code === "unauthorized"
        ? "Sign in to see the tournaments (this server lists them to players only)." : `tournaments unavailable: ${exc.message}`));
    }
  };
  const render = () => {
    const groups = [["open", "Open now"], ["scheduled", "Scheduled"], ["closed", "Closed"]];
    fill(lists, groups.map(([status, title]) => {
      const mine = items.filter((t) => t.status === status);
      return h(`section.group.g-${status}`, h("h2", title, h("span.count", String(mine.length))),
        mine.length ? h("ul.tournaments", mine.map((t) => card(t, link))) : h("p.muted", "none"));
    }));
    tick();
    if (!performance.getEntriesByName("samedeal:lobby").length) performance.mark("samedeal:lobby"); // bench/web.py
  };
  const tick = () => {
    for (const el of lists.querySelectorAll(".countdown")) {
      const now = link.now();
      const st = el.dataset.status;
      el.textContent = st === "scheduled" ? `opens ${relative(Date.parse(el.dataset.starts) - now)}`
        : st === "open" ? `closes ${relative(Date.parse(el.dataset.ends) - now)}` : `closed ${relative(Date.parse(el.dataset.closed || el.dataset.ends) - now)}`;
    }
  };
  const timers = [setInterval(tick, 1000), setInterval(load, 15000)];
  const off = link.onReconnect(load);
  await load();
  return () => {
    timers.forEach(clearInterval);
    off();
  };
}

async function copyToken(tokenBox) {
  const code = tokenBox.querySelector("code");
  try {
    await navigator.clipboard.writeText(code.textContent);
    tokenBox.dataset.copied = "1";
  } catch {
    const range = document.createRange(); // no clipboard here: select it for Ctrl+C
    range.selectNodeContents(code);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
}

function card(t, link) {
  const signedIn = !!account.token;
  const action = t.status === "open" ? (signedIn ? "Play" : "Watch") : t.status === "closed" ? "Results, replays, verify" : "Watch";
  void link;
  return h(`li.tcard.st-${t.status}`, { "data-id": String(t.id) },
    h("div.tline", h("a.tname", { href: `/t/${t.id}`, "data-nav": "" }, t.name), h("span.tags", h(`span.tag.st-${t.status}`, t.status), t.void ? [" ", h("span.tag.void", "void")] : null)),
    h("p.meta", optionsText(t.game, t.options), ` · ${t.entrants} entrant${t.entrants === 1 ? "" : "s"}`,
      t.time_limit_s ? ` · ${clock(t.time_limit_s * 1000)} per game` : ""),
    h("p.meta.small", h("span.countdown", { "data-status": t.status, "data-starts": t.starts_at, "data-ends": t.ends_at, "data-closed": t.closed_at || "" }),
      ` · ${localTime(t.starts_at)} – ${localTime(t.closed_at || t.ends_at)}`,
      t.closed_at && Date.parse(t.closed_at) < Date.parse(t.ends_at) - 1000 ? " (closed early)" : ""),
    h("p.commit.small", "commitment ", h("code", { title: "sha256 of the seed, published before play" }, t.commitment)),
    beaconLine(t), // a public beacon (v1.3): its network, round and whether awaited, used or void
    h("a.button.go", { href: `/t/${t.id}`, "data-nav": "" }, action));
}

function renderAccount(box, link, changed, justRegistered = false) {
  if (account.token) {
    const tokenBox = h("div.token-box", h("code.token", account.token),
      h("button.copy", { type: "button", onclick: () => copyToken(tokenBox) }, "Copy"));
    const keep = h("p.small", "Keep it to sign in elsewhere (it stays in this browser's storage, never in a link). ",
      h("strong", "It is the only key to this player: there is no recovery."));
    const details = h("details.your-token", { open: justRegistered }, h("summary", "Your token"), keep, tokenBox);
    const saveNow = justRegistered ? h("p.save-token.warn", { role: "alert" }, `Registered as ${account.name}. Save your token now (copy it below): `,
      "it is the only way to sign in again on another device or after signing out, and nobody can recover it.") : null;
    const out = h("div.signout-area");
    const ask = () => fill(out, h("div.confirm.signout-confirm", { role: "alertdialog", "aria-label": "Sign out?" },
      h("p", "Sign out? This browser forgets your token. Without a copy of it you can never sign in as ", h("strong", account.name || "this player"), " again."),
      h("button.danger.signout-yes", { type: "button", onclick: () => { link.signOut(); changed(); renderAccount(box, link, changed); } }, "I saved it: sign out"),
      h("button.signout-no", { type: "button", onclick: () => fill(out, signout) }, "Cancel")));
    const signout = h("button.signout", { type: "button", onclick: () => { details.open = true; ask(); } }, "Sign out");
    fill(out, signout);
    return fill(box, h("h2", "Signed in"),
      h("p", "Playing as ", h("strong.me", account.name || "?"), "."), saveNow, details, out);
  }
  const msg = h("p.error", { role: "alert" });
  const name = h("input#reg-name", { name: "name", required: true, maxlength: "64", autocomplete: "username", placeholder: "letters, digits, _ or -" });
  const token = h("input#signin-token", { name: "token", required: true, autocomplete: "off", placeholder: "token from another device or the CLI" });
  const register = h("form.register", {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        await link.register(name.value.trim());
        changed();
        renderAccount(box, link, changed, true);
      } catch (exc) {
        msg.textContent = exc.message;
      }
    },
  }, h("label", { for: "reg-name" }, "Player name"), name, h("button.primary", { type: "submit" }, "Register"));
  const signin = h("form.signin", {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const player = await link.authenticate(token.value.trim());
        account.save(token.value.trim(), player.name);
        changed();
        renderAccount(box, link, changed);
      } catch (exc) {
        msg.textContent = exc.message;
      }
    },
  }, h("label", { for: "signin-token" }, "Token"), token, h("button", { type: "submit" }, "Sign in"));
  fill(box, h("h2", "Play"), h("p.small", "Pick a name to register; the server gives you a token, kept in this browser (save a copy: it cannot be recovered)."),
    register, passkeySignIn(link, () => { changed(); renderAccount(box, link, changed); }), // v1.4
    h("details", h("summary", "Already registered? Sign in with your token"), signin),
    h("p.small", h("a.link-signin", { href: "/account", "data-nav": "" }, "Signed in on another device? Sign in here with it")), msg);
  void $;
}
