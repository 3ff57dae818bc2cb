// /clubs and /clubs/ID (PROTOCOL v1.4 "Clubs", public messages `clubs` and `club`): every
// club (paged), one's own, creating one and joining with a code; a club's page with its
// members (paged, in order of joining), its upcoming events and, for its owner and
// leaders, their tools (clubtools.js). A refusal by quota (3 clubs owned, too many wrong
// codes) reads as a quota (i18n.js quotaText) and is never sent again (net.js).

import { fill, h, localTime } from "./dom.js";
import { t, tn } from "./i18n.js";
import { nameKey } from "./ranking.js";
import { account } from "./store.js";
import { clubEvents } from "./clubevents.js";
import { asking, inviteBox, memberTools, refusal, roleTag } from "./clubtools.js";

const PAGE = 50;

function go(path) {
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate")); // app.js routes a new path
}

const signedIn = (link) => Boolean(account.token && link.player);

function clubItem(c) {
  return h("li.club-item", { "data-club": String(c.id) },
    h("a.club-name", { href: `/clubs/${c.id}`, "data-nav": "", translate: "no" }, c.name), " ", roleTag(c.role),
    h("p.meta.small", tn("web.clubs.members", c.members), " · ",
      c.owner ? h("span", t("web.clubs.owner"), " ", h("span", { translate: "no" }, c.owner)) : t("web.clubs.no_owner")),
    c.description ? h("p.small.club-description", { translate: "no" }, c.description) : null);
}

function pager(offset, shown, total, to) {
  const last = Math.min(total, offset + shown);
  return h("p.pager",
    h("button.prev", { type: "button", disabled: offset === 0, onclick: () => to(Math.max(0, offset - PAGE)) }, "← ", t("web.ratings.previous")),
    h("span.range", " ", t("web.ratings.range", { from: total ? offset + 1 : 0, to: total ? last : 0, total }), " "),
    h("button.next", { type: "button", disabled: last >= total, onclick: () => to(offset + PAGE) }, t("web.ratings.next"), " →"));
}

/** The form that joins a club with its code (the code names the club). */
function joinForm(link, msg) {
  const code = h("input#club-code", { name: "code", required: true, maxlength: "64", autocomplete: "off", spellcheck: "false", placeholder: t("web.clubs.code_hint") });
  return h("form.club-join", {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const club = (await link.call("join_club", { code: code.value.trim() })).club;
        go(`/clubs/${club.id}`);
      } catch (exc) {
        refusal(msg, exc);
      }
    },
  }, h("label", { for: "club-code" }, t("web.clubs.join_label")), h("span.club-row", code, h("button.primary", { type: "submit" }, t("web.clubs.join"))));
}

function createForm(link, msg) {
  const name = h("input#club-new-name", { name: "name", required: true, maxlength: "32", autocomplete: "off", placeholder: t("web.clubs.name_hint") });
  const about = h("textarea#club-new-description", { name: "description", maxlength: "500", rows: "2", placeholder: t("web.clubs.description_hint") });
  return h("form.club-create", {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const club = (await link.call("create_club", { name: name.value.trim(), description: about.value })).club;
        go(`/clubs/${club.id}`);
      } catch (exc) {
        refusal(msg, exc);
      }
    },
  }, h("label", { for: "club-new-name" }, t("web.clubs.create_label")), name,
  h("label", { for: "club-new-description" }, t("web.clubs.description")), about,
  h("p.small.muted", t("web.clubs.create_help")), h("button.primary", { type: "submit" }, t("web.clubs.create")));
}

export async function clubsPage(main, link) {
  await link.ready;
  const msg = h("p.error.club-msg", { role: "alert" });
  const mine = h("section.club-box.my-clubs");
  const all = h("section.club-box.all-clubs", h("p.muted", t("web.loading")));
  const forms = signedIn(link)
    ? h("section.club-box.club-forms", joinForm(link, msg), createForm(link, msg))
    : h("section.club-box.club-forms", h("p", h("a", { href: "/", "data-nav": "" }, t("web.clubs.sign_in"))));
  fill(main, h("div.clubs", h("h1", t("web.clubs.title")), h("p.muted", t("web.clubs.intro")), msg,
    h("div.clubs-grid", h("div", forms, mine), all)));
  let offset = 0;
  const load = async () => {
    try {
      const m = await link.call("clubs", { offset, limit: PAGE });
      fill(all, h("h2", t("web.clubs.all"), h("span.count", String(m.total))),
        m.items.length ? h("ul.club-list", m.items.map(clubItem)) : h("p.muted", t("web.clubs.none")),
        m.total > PAGE ? pager(offset, m.items.length, m.total, (to) => { offset = to; load(); }) : null);
    } catch (exc) {
      fill(all, h("p.muted", exc.message));
    }
  };
  const loadMine = async () => {
    if (!signedIn(link)) return;
    try {
      const m = await link.call("clubs", { mine: true });
      fill(mine, h("h2", t("web.clubs.mine"), h("span.count", String(m.total))),
        m.items.length ? h("ul.club-list", m.items.map(clubItem)) : h("p.muted", t("web.clubs.mine_none")));
    } catch (exc) {
      refusal(msg, exc);
    }
  };
  await Promise.all([load(), loadMine()]);
  return null;
}

/** A member's role from the CLUB: `owner`, `leader` or `member`. */
function roleOf(club, name) {
  const key = nameKey(name);
  if (club.owner && nameKey(club.owner) === key) return "owner";
  return club.leaders.some((n) => nameKey(n) === key) ? "leader" : "member";
}

export async function clubPage(main, link, id) {
  await link.ready;
  const msg = h("p.error.club-msg", { role: "alert" });
  let offset = 0;
  let club = null;
  const load = async () => {
    try {
      club = (await link.call("club", { club: id, offset, limit: PAGE })).club;
    } catch (exc) {
      fill(main, h("h1", t("web.clubs.club")), h("p.muted", exc.message), h("p", h("a", { href: "/clubs", "data-nav": "" }, t("web.clubs.back"))));
      return;
    }
    render();
  };
  /** One of the leaders' messages (or leave_club); the page drawn again from its reply. */
  const act = async (type, fields = {}) => {
    try {
      await link.call(type, { club: id, ...fields });
      msg.textContent = "";
      msg.dataset.limit = "";
      await load();
    } catch (exc) {
      refusal(msg, exc);
    }
  };
  const render = () => {
    const c = club;
    const me = signedIn(link) ? account.name : null;
    const names = c.member_names || [];
    const members = h("section.club-box.club-members",
      h("h2", t("web.club.members"), h("span.count", String(c.members))),
      h("ul.members", names.map((name) => {
        const role = roleOf(c, name);
        const self = me && nameKey(me) === nameKey(name);
        return h(`li.member${self ? ".me" : ""}`, { "data-member": name },
          h("a.player", { href: `/players/${encodeURIComponent(name)}`, "data-nav": "", translate: "no" }, name), " ", roleTag(role),
          self ? null : memberTools(c.role, role, name, act));
      })),
      c.members > PAGE ? pager(offset, names.length, c.members, (to) => { offset = to; load(); }) : null);
    const leads = c.role === "owner" || c.role === "leader";
    let mine = null;
    if (c.role === "owner") mine = h("p.small.muted.owner-stays", t("web.club.owner_stays"));
    else if (c.role) mine = asking("leave", t("web.club.leave"), t("web.club.leave_ask", { name: c.name }), t("web.club.leave_yes"), () => act("leave_club"));
    else if (me) mine = joinForm(link, msg);
    else mine = h("p", h("a", { href: "/", "data-nav": "" }, t("web.clubs.sign_in")));
    fill(main, h("div.club-page", { "data-club": String(c.id) },
      h("h1", h("span", { translate: "no" }, c.name), " ", roleTag(c.role)),
      c.description ? h("p.club-description", { translate: "no" }, c.description) : null,
      h("p.meta.small", c.owner ? [t("web.clubs.owner"), " ", h("strong.owner", { translate: "no" }, c.owner)] : t("web.clubs.no_owner"),
        c.leaders.length ? [" · ", t("web.club.leaders"), " ", h("span.leaders", { translate: "no" }, c.leaders.join(", "))] : null,
        " · ", t("web.club.since", { when: localTime(c.created_at) })),
      msg,
      leads ? inviteBox(c.invite || null, () => act("new_invite")) : null,
      h("div.clubs-grid", h("div", clubEvents(link, id, leads), h("section.club-box.club-self", mine)), members),
      h("p.small", h("a", { href: "/clubs", "data-nav": "" }, t("web.clubs.back")))));
  };
  await load();
  return null;
}
