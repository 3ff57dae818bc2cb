// /: register or sign in, and the tournaments (open, scheduled, closed) with their
// commitment, options, entrants and a countdown on the server's clock.

import { beaconLine } from "./beaconline.js";
import { optionsText } from "./boards.js";
import { $, clock, fill, h, relative } from "./dom.js";
import { ServerError } from "./net.js";
import { passkeySignIn } from "./passkeys.js";
import { upcomingSection } from "./series.js";
import { addToCalendar } from "./calendarlinks.js";
import { eventTags, lobbyClubEvents } from "./clubevents.js";
import { account } from "./store.js";
import { dateRange, t as tr, tn } from "./i18n.js";

export async function lobbyPage(main, link, refreshAccount) {
  const accountBox = h("section.account-box");
  const lists = h("section.lists", h("p.muted", tr("web.lobby.loading")));
  fill(main, h("div.lobby", accountBox, h("div.lobby-main", upcomingSection(link), lists))); // the series' next occurrences, then the lists
  renderAccount(accountBox, link, () => {
    refreshAccount();
    load();
  });
  let items = [];
  let myClubs = []; // v1.4: the lobby shows the events of the viewer's clubs first
  const load = async () => {
    try {
      [items, myClubs] = await Promise.all([link.call("tournaments").then((m) => m.items),
        account.token ? link.call("clubs", { mine: true }).then((m) => m.items, () => []) : []]);
      render();
    } catch (exc) {
      fill(lists, h("p.muted", exc instanceof ServerError && exc.code === "unauthorized"
        ? tr("web.lobby.players_only") : tr("web.lobby.unavailable", { error: exc.message })));
    }
  };
  const render = () => {
    const groups = [["open", tr("web.lobby.group.open")], ["scheduled", tr("web.lobby.group.scheduled")], ["closed", tr("web.lobby.group.closed")]];
    fill(lists, lobbyClubEvents(items, myClubs), groups.map(([status, title]) => {
      const mine = items.filter((t) => t.status === status);
      return h(`section.group.g-${status}`, h("h2", title, h("span.count", String(mine.length))),
        mine.length ? h("ul.tournaments", mine.map((t) => card(t, link))) : h("p.muted", tr("web.lobby.none")));
    }));
    tick();
    if (!performance.getEntriesByName("samedeal:lobby").length) performance.mark("samedeal:lobby"); // bench/web.py
  };
  const tick = () => {
    for (const el of lists.querySelectorAll(".countdown")) {
      const now = link.now();
      const st = el.dataset.status;
      el.textContent = st === "scheduled" ? tr("web.countdown.opens", { when: relative(Date.parse(el.dataset.starts) - now) })
        : st === "open" ? tr("web.countdown.closes", { when: relative(Date.parse(el.dataset.ends) - now) })
          : tr("web.countdown.closed", { when: relative(Date.parse(el.dataset.closed || el.dataset.ends) - now) });
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
  const action = t.status === "open" ? (signedIn ? tr("web.lobby.play") : tr("web.lobby.watch")) : t.status === "closed" ? tr("web.lobby.results") : tr("web.lobby.watch");
  void link;
  return h(`li.tcard.st-${t.status}`, { "data-id": String(t.id) },
    h("div.tline", h("a.tname", { href: `/t/${t.id}`, "data-nav": "", translate: "no" }, t.name), h("span.tags", h(`span.tag.st-${t.status}`, tr(`web.status.${t.status}`)), t.void ? [" ", h("span.tag.void", tr("web.tag.void"))] : null, " ", eventTags(t))),
    h("p.meta", optionsText(t.game, t.options), " · ", tn("web.entrants", t.entrants),
      t.time_limit_s ? [" · ", tr("web.per_game", { clock: clock(t.time_limit_s * 1000) })] : "",
      t.status === "scheduled" ? [" · ", addToCalendar(t.id)] : ""),
    h("p.meta.small", h("span.countdown", { "data-status": t.status, "data-starts": t.starts_at, "data-ends": t.ends_at, "data-closed": t.closed_at || "" }),
      ` · ${dateRange(t.starts_at, t.closed_at || t.ends_at)}`,
      t.closed_at && Date.parse(t.closed_at) < Date.parse(t.ends_at) - 1000 ? [" ", tr("web.lobby.closed_early")] : ""),
    h("details.audit.small", h("summary", tr("web.audit.summary")),
      h("p.commit", tr("web.commitment.label"), " ", h("code", { title: tr("web.commitment.title"), translate: "no" }, t.commitment)),
      h("p.muted", tr("web.commitment.explain"))),
    beaconLine(t), // a public beacon: its network, round and whether awaited, used or void
    h("a.button.go", { href: `/t/${t.id}`, "data-nav": "" }, action));
}

function renderAccount(box, link, changed, justRegistered = false) {
  if (account.token) {
    const tokenBox = h("div.token-box", h("code.token", account.token),
      h("button.copy", { type: "button", onclick: () => copyToken(tokenBox) }, tr("web.token.copy")));
    const keep = h("p.small", tr("web.token.keep"), " ",
      h("strong", tr("web.token.only_key")));
    const details = h("details.your-token", { open: justRegistered }, h("summary", tr("web.token.yours")), keep, tokenBox);
    const saveNow = justRegistered ? h("p.save-token.warn", { role: "alert" }, tr("web.token.save_now", { name: account.name })) : null;
    const out = h("div.signout-area");
    const ask = () => fill(out, h("div.confirm.signout-confirm", { role: "alertdialog", "aria-label": tr("web.signout.ask") },
      h("p", tr("web.signout.warning", { name: account.name || "?" })),
      h("button.danger.signout-yes", { type: "button", onclick: () => { link.signOut(); changed(); renderAccount(box, link, changed); } }, tr("web.signout.yes")),
      h("button.signout-no", { type: "button", onclick: () => fill(out, signout) }, tr("web.cancel"))));
    const signout = h("button.signout", { type: "button", onclick: () => { details.open = true; ask(); } }, tr("web.signout.button"));
    fill(out, signout);
    return fill(box, h("h2", tr("web.account.signed_in")),
      h("p", tr("web.account.playing_as"), " ", h("strong.me", { translate: "no" }, account.name || "?")), saveNow, details, out);
  }
  const msg = h("p.error", { role: "alert" });
  const name = h("input#reg-name", { name: "name", required: true, maxlength: "64", autocomplete: "username", placeholder: tr("web.register.name_hint") });
  const token = h("input#signin-token", { name: "token", required: true, autocomplete: "off", placeholder: tr("web.signin.token_hint") });
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
  }, h("label", { for: "reg-name" }, tr("web.register.name")), name, h("button.primary", { type: "submit" }, tr("web.register.button")));
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
  }, h("label", { for: "signin-token" }, tr("web.signin.token")), token, h("button", { type: "submit" }, tr("web.account.sign_in")));
  fill(box, h("h2", tr("web.register.title")), h("p.small", tr("web.register.intro")),
    register, passkeySignIn(link, () => { changed(); renderAccount(box, link, changed); }), // v1.4
    h("details", h("summary", tr("web.signin.summary")), signin),
    h("p.small", h("a.link-signin", { href: "/account", "data-nav": "" }, tr("web.signin.other_device"))), msg);
  void $;
}
