// What a join needs beyond the tournament (PROTOCOL v1.4): the entry code of a tournament
// whose SUMMARY says `code_required`, and, in a team battle, the club to play for when
// the player is a member of several of its clubs (`clubs` with `mine: true`). Anything
// else is the server's to refuse, in its words.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The join notice's extra fields for `summary`: `el` (null when none is needed) and
 * `fields()`, what to add to the `join` message. */
export function joinExtras(link, summary) {
  const parts = [];
  let code = null;
  let club = null;
  if (summary && summary.code_required) {
    code = h("input#entry-code", { name: "code", required: true, maxlength: "32", autocomplete: "off", spellcheck: "false", placeholder: t("web.join.code_hint") });
    parts.push(h("label.join-code", { for: "entry-code" }, t("web.join.code")), " ", code);
  }
  const named = summary && summary.battle ? summary.battle.clubs : [];
  const choice = h("span.join-club");
  if (named.length) {
    link.call("clubs", { mine: true }).then((m) => {
      const mine = m.items.filter((c) => named.includes(c.id));
      if (mine.length < 2) return; // one club (or none: the server says so) needs no choice
      club = h("select#join-club", mine.map((c) => h("option", { value: String(c.id), translate: "no" }, c.name)));
      choice.replaceChildren(h("label", { for: "join-club" }, t("web.join.club")), " ", club);
    }, () => {});
    parts.push(choice);
  }
  const fields = () => ({
    ...(code ? { code: code.value.trim() } : {}),
    ...(club ? { club: Number(club.value) } : {}),
  });
  return { el: parts.length ? h("p.join-extras", parts) : null, fields };
}
