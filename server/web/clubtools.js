// The club page's parts for its owner and leaders (PROTOCOL v1.4 "Clubs"): the join code
// (a new one stops the old at once), and beside each member
// what the viewer's role allows: the owner names and unnames leaders, hands the club over
// and removes anyone; a leader removes members. Asking first for what cannot be undone.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** A refusal said in `el`; a quota (ServerError.quota, `limit` in the reply) marked so. */
export function refusal(el, exc) {
  el.textContent = exc.message;
  el.dataset.limit = exc.quota || "";
  el.classList.toggle("quota", Boolean(exc.quota));
}

/** The tag of a role (`owner`, `leader`; nothing for a plain member or none). */
export function roleTag(role) {
  return role === "owner" || role === "leader" ? h(`span.tag.role.role-${role}`, t(`web.club.role.${role}`)) : null;
}

/** A button that asks before it acts: the question, yes, and cancel. */
export function asking(cls, label, question, yes, onYes) {
  const box = h("span.confirm-box");
  const ask = () => box.replaceChildren(h("span.confirm-q", question), " ",
    h(`button.danger.${cls}-yes`, { type: "button", onclick: () => { reset(); onYes(); } }, yes), " ",
    h(`button.${cls}-no`, { type: "button", onclick: reset }, t("web.cancel")));
  const reset = () => box.replaceChildren(h(`button.${cls}`, { type: "button", onclick: ask }, label));
  reset();
  return box;
}

/** The leaders' box: the club's current code (CLUB's `invite`, sent to its owner and
 * leaders only), to copy and hand out, and the button that makes a new one. */
export function inviteBox(code, renew) {
  return h("section.club-box.club-invite", h("h2", t("web.club.invite")),
    code ? [h("p", t("web.club.invite_is"), " ", h("code.invite", { translate: "no" }, code)), h("p.small.muted", t("web.club.invite_help"))] : null,
    code ? asking("new-invite", t("web.club.new_invite"), t("web.club.new_invite_ask"), t("web.club.new_invite_yes"), renew)
      : h("button.new-invite", { type: "button", onclick: renew }, t("web.club.new_invite")));
}

/** What the viewer (`mine`) may do to a member whose role is `theirs`. */
export function memberTools(mine, theirs, name, act) {
  const tools = [];
  if (mine === "owner") {
    tools.push(theirs === "leader"
      ? h("button.unset-leader", { type: "button", onclick: () => act("set_leader", { player: name, leader: false }) }, t("web.club.unset_leader"))
      : h("button.set-leader", { type: "button", onclick: () => act("set_leader", { player: name, leader: true }) }, t("web.club.set_leader")));
    tools.push(asking("hand-over", t("web.club.hand_over"), t("web.club.hand_over_ask", { name }), t("web.club.hand_over_yes"),
      () => act("set_owner", { player: name })));
  }
  if (mine === "owner" || (mine === "leader" && theirs === "member")) {
    tools.push(asking("kick", t("web.club.kick"), t("web.club.kick_ask", { name }), t("web.club.kick_yes"), () => act("kick_member", { player: name })));
  }
  return tools.length ? h("span.member-tools", tools) : null;
}
