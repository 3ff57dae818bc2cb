// The browser client: routes by path (server/net/pages.py serves this page for /, /t/ID,
// /t/ID/replay/NAME, /t/ID/analysis, /verify, /rules/gaps, /rules/klondike, /leaderboard/G, /players/NAME, /clubs and /clubs/ID) over one same-origin WebSocket.

import { $, fill, h } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { analysisPage } from "./analysis.js";
import { Link } from "./net.js";
import { playPage } from "./play.js";
import { replayPage } from "./replay.js";
import { GAMES, leaderboardPage, playerPage } from "./ratingspage.js";
import { account } from "./store.js";
import { operatorPage } from "./operator.js";
import { accountPage } from "./account.js";
import { clubPage, clubsPage } from "./clubs.js";
import { verifyPage } from "./verifypage.js";
import { rulesPage } from "./rulespage.js";
import { selector, start as startLanguage, t, translateStatic } from "./i18n.js";

await startLanguage(); // the catalogue first: every page below speaks through it
translateStatic();
fill($("#lang-box"), selector(() => location.reload()));

const link = new Link();
window.samedeal = { link }; // for the curious (and the tests): the connection, no secret
let leave = null;

function banner(l) {
  const el = $("#banner");
  if (l.online || l.attempt === 0) {
    el.hidden = true;
    return;
  }
  const secs = Math.max(0, Math.round((l.retryAt - Date.now()) / 1000));
  fill(el, h("strong", t("web.banner.offline")), " — ", secs ? t("web.banner.reconnecting_in", { secs }) : t("web.banner.reconnecting"));
  el.hidden = false;
}
link.onStatus(banner);
setInterval(() => banner(link), 1000);

function accountChip() {
  fill($("#account"), account.token ? h("a.me", { href: "/account", "data-nav": "" }, account.name || t("web.account.signed_in_chip")) : h("a", { href: "/", "data-nav": "" }, t("web.account.sign_in")));
  operatorLink();
}

/** The header's link to /operator, for an operator only (once the server says so). */
function operatorLink() {
  const nav = document.querySelector("header nav");
  const there = nav.querySelector("a[href='/operator']");
  const admin = Boolean(account.token && link.player && link.player.admin);
  if (admin && !there) nav.append(" ", h("a", { href: "/operator", "data-nav": "" }, t("web.nav.operator")));
  if (!admin && there) there.remove();
}
link.onStatus(operatorLink); // after each (re)connection's auth

async function route() {
  // a page's cleanup; a page that could not open (an error shown instead) has none
  if (typeof leave === "function") leave();
  leave = null;
  const main = $("#main");
  const path = decodeURIComponent(location.pathname);
  routed = location.pathname;
  accountChip();
  let m;
  document.body.dataset.page = "";
  if (path === "/") {
    document.body.dataset.page = "lobby";
    leave = await lobbyPage(main, link, accountChip);
  } else if ((m = /^\/t\/(\d+)\/replay\/([\p{L}\p{M}0-9_-]{1,64})$/u.exec(path))) {
    document.body.dataset.page = "replay";
    leave = await replayPage(main, link, Number(m[1]), m[2]);
  } else if ((m = /^\/t\/(\d+)\/analysis$/.exec(path))) {
    document.body.dataset.page = "analysis";
    leave = await analysisPage(main, link, Number(m[1]));
  } else if ((m = /^\/t\/(\d+)$/.exec(path))) {
    document.body.dataset.page = "play";
    leave = await playPage(main, link, Number(m[1]));
  } else if ((m = /^\/leaderboard\/([a-z]{1,16})$/.exec(path)) && GAMES.includes(m[1])) {
    document.body.dataset.page = "leaderboard";
    leave = await leaderboardPage(main, link, m[1]);
  } else if ((m = /^\/players\/([\p{L}\p{M}0-9_-]{1,64})$/u.exec(path))) {
    document.body.dataset.page = "player";
    leave = await playerPage(main, link, m[1]);
  } else if (path === "/clubs") { // v1.4 clubs
    document.body.dataset.page = "clubs";
    leave = await clubsPage(main, link);
  } else if ((m = /^\/clubs\/(\d{1,10})$/.exec(path))) {
    document.body.dataset.page = "club";
    leave = await clubPage(main, link, Number(m[1]));
  } else if (path === "/operator") { // the operator's page
    document.body.dataset.page = "operator";
    leave = await operatorPage(main, link);
  } else if (path === "/account") { // the account page: devices, links
    document.body.dataset.page = "account";
    leave = await accountPage(main, link, accountChip);
  } else if ((m = /^\/rules\/(gaps|klondike)$/.exec(path))) {
    document.body.dataset.page = "rules";
    await rulesPage(main, m[1]);
  } else if (path === "/verify") {
    document.body.dataset.page = "verify";
    verifyPage(main);
  } else {
    fill(main, h("h1", t("web.notfound.title")), h("p", h("a", { href: "/", "data-nav": "" }, t("web.notfound.lobby"))));
  }
  // the tab's title in the page's language: its heading, then the product's name
  const heading = main.querySelector("h1");
  document.title = heading && heading.textContent.trim() ? `${heading.textContent.trim()} · samedeal` : "samedeal";
  document.body.dataset.ready = "1";
}

document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-nav]");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || a.origin !== location.origin) return;
  e.preventDefault();
  history.pushState(null, "", a.pathname + a.hash);
  route();
});
let routed = null; // the path last routed: a fragment link on the same page only scrolls
window.addEventListener("popstate", () => {
  if (location.pathname !== routed) return route();
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
});
route();
