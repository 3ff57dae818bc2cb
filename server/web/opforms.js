// The operator page's forms (operator.js): everything the command lines offer for a
// tournament or a schedule, as fields (no JSON to type): the game from a list, its
// variant and options, durations in minutes, the per-game time limit, the join cutoff,
// entry conditions, rated, a public beacon. The page checks only what a field's own
// bounds say; the server checks the rest with the same rules as both command lines and
// answers in one line, which the page shows as it is.

import { h } from "./dom.js";
import { VARIANTS } from "./gaps.js";
import { duration, t, tn } from "./i18n.js";
import { variantWords } from "./variantwords.js";

const MINUTE_S = 60;
const DAY_S = 86400;

/** A labelled input; `attrs` go on the input. */
export function field(id, label, attrs = {}) {
  return h("div.field", { "data-field": id }, h("label", { for: id }, label), h(`input#${id}`, { name: id, ...attrs }));
}

/** A labelled select of [value, words] pairs. */
export function choice(id, label, pairs, attrs = {}) {
  return h("div.field", { "data-field": id }, h("label", { for: id }, label),
    h(`select#${id}`, { name: id, ...attrs }, pairs.map(([value, words]) => h("option", { value }, words))));
}

/** A labelled checkbox. */
export function tick(id, label, checked = false) {
  return h("div.field.tick", { "data-field": id }, h(`input#${id}`, { name: id, type: "checkbox", checked }),
    h("label", { for: id }, label));
}

/** The fields of a game and its options, for form ids starting with `p` ("t" or "s"). */
export function gameFields(p) {
  return [
    choice(`${p}-game`, t("web.op.game"), [["gaps", t("web.game.gaps")], ["klondike", t("web.game.klondike")]]),
    h("fieldset.gaps-only", h("legend", t("web.game.gaps")),
      choice(`${p}-variant`, t("web.op.variant"), Object.values(VARIANTS).map((v) => [v.name,
        `${v.name === "gaps" ? t("web.op.gaps_plain") : variantWords(v.name)} · ${tn("web.op.redeals_default", v.redeals)}`])),
      field(`${p}-redeals`, t("web.op.redeals"), { type: "number", min: "0", max: "3", step: "1" }),
      choice(`${p}-redeal`, t("web.op.a_redeal"), [["keep_runs", t("web.op.keep_runs")], ["reshuffle_all", t("web.op.reshuffle_all")]]),
      tick(`${p}-winnable`, t("web.op.winnable"))),
    h("fieldset.klondike-only", { hidden: true }, h("legend", t("web.game.klondike")),
      choice(`${p}-draw`, t("web.op.draw"), [["1", t("web.op.one_card")], ["3", t("web.op.three_cards")]]),
      field(`${p}-passes`, t("web.op.passes"), { type: "number", min: "1", max: "99", step: "1" }),
      tick(`${p}-guaranteed`, t("web.op.guaranteed")),
      tick(`${p}-hints`, t("web.op.hints"))),
  ];
}

/** The time limit, join cutoff, entry conditions, rated and beacon fields. */
export function entryFields(p, joinLabel) {
  return [
    field(`${p}-limit`, t("web.op.limit"), { type: "number", min: "1", step: "1" }),
    field(`${p}-join`, joinLabel, { type: "number", min: "1", step: "1" }),
    h("fieldset", h("legend", t("web.op.who")),
      field(`${p}-age`, t("web.op.age"), { type: "number", min: "0", step: "any" }),
      field(`${p}-min-rated`, t("web.op.min_rated"), { type: "number", min: "0", step: "1" }),
      field(`${p}-min-rating`, t("web.op.min_rating"), { type: "number", step: "any" }),
      field(`${p}-max-rating`, t("web.op.max_rating"), { type: "number", step: "any" }),
      tick(`${p}-no-bots`, t("web.series.no_bots"))),
    tick(`${p}-rated`, t("web.op.rated"), true),
    choice(`${p}-beacon`, t("web.op.beacon"), [["", t("web.op.beacon_none")],
      ["quicknet", t("web.op.beacon_quicknet")], ["default", t("web.op.beacon_default")]]),
  ];
}

/** Shows the options of the chosen game only, and the variant's rules that apply. */
export function syncGame(form, p) {
  const game = form.querySelector(`#${p}-game`).value;
  form.querySelector(".gaps-only").hidden = game !== "gaps";
  form.querySelector(".klondike-only").hidden = game !== "klondike";
  const variant = form.querySelector(`#${p}-variant`).value;
  const winnable = form.querySelector(`#${p}-winnable`);
  winnable.disabled = variant !== "gaps";
  if (winnable.disabled) winnable.checked = false;
  const reshuffle = form.querySelector(`#${p}-redeal option[value="reshuffle_all"]`);
  reshuffle.disabled = variant === "montana";
  if (reshuffle.disabled && reshuffle.selected) form.querySelector(`#${p}-redeal`).value = "keep_runs";
}

const text = (form, id) => form.querySelector(`#${id}`).value.trim();
const checked = (form, id) => form.querySelector(`#${id}`).checked;
const number = (form, id) => (text(form, id) === "" ? null : Number(text(form, id)));

/** The game's options as the protocol takes them: only what differs from the defaults. */
export function options(form, p) {
  if (text(form, `${p}-game`) === "klondike") {
    const out = { draw: Number(text(form, `${p}-draw`)) };
    if (number(form, `${p}-passes`) !== null) out.passes = number(form, `${p}-passes`);
    if (checked(form, `${p}-guaranteed`)) out.guaranteed = true;
    if (checked(form, `${p}-hints`)) out.hints = true;
    return out;
  }
  const out = {};
  if (text(form, `${p}-variant`) !== "gaps") out.variant = text(form, `${p}-variant`);
  if (number(form, `${p}-redeals`) !== null) out.redeals = number(form, `${p}-redeals`);
  if (text(form, `${p}-redeal`) !== "keep_runs") out.redeal = text(form, `${p}-redeal`);
  if (checked(form, `${p}-winnable`)) out.winnable = true;
  return out;
}

/** The message's fields after the game's: time limit, conditions, rated, beacon;
 * `join` is what the join field's minutes become (join_until or join_for_s). */
export function entry(form, p, join) {
  const out = { rated: checked(form, `${p}-rated`) };
  const limit = number(form, `${p}-limit`);
  if (limit !== null) out.time_limit_s = Math.round(limit * MINUTE_S);
  const joinMinutes = number(form, `${p}-join`);
  if (joinMinutes !== null) Object.assign(out, join(joinMinutes * MINUTE_S));
  const conditions = {};
  const age = number(form, `${p}-age`);
  if (age !== null) conditions.min_account_age_s = Math.round(age * DAY_S);
  for (const [id, key] of [["min-rated", "min_rated"], ["min-rating", "min_rating"], ["max-rating", "max_rating"]]) {
    if (number(form, `${p}-${id}`) !== null) conditions[key] = number(form, `${p}-${id}`);
  }
  if (checked(form, `${p}-no-bots`)) conditions.bots = false;
  if (Object.keys(conditions).length) out.conditions = conditions;
  if (text(form, `${p}-beacon`)) out.beacon = { network: text(form, `${p}-beacon`) };
  return out;
}

/** "every day", "every 2 h", "every 90 min": a schedule's period in words. */
export function period(seconds) {
  if (seconds % (7 * DAY_S) === 0) return seconds === 7 * DAY_S ? t("web.op.every_week") : tn("web.op.every_weeks", seconds / (7 * DAY_S));
  if (seconds % DAY_S === 0) return seconds === DAY_S ? t("web.series.every_day") : tn("web.series.every_days", seconds / DAY_S);
  if (seconds % 3600 === 0) return seconds === 3600 ? t("web.series.every_hour") : tn("web.series.every_hours", seconds / 3600);
  return t("web.series.every", { span: duration(Math.round(seconds / MINUTE_S) * MINUTE_S * 1000) });
}

/** "1 h 30 min", "45 min": a duration in words. */
export function span(seconds) {
  return duration(seconds * 1000);
}

/** A button that asks before doing what cannot be undone: its question, then "yes" and
 * "no" buttons in its place. */
export function confirmButton(cls, label, question, yes, onYes) {
  const box = h(`span.confirm-box`);
  const ask = () => {
    box.replaceChildren(h("span.confirm-q", question), " ",
      h(`button.danger.${cls}-yes`, { type: "button", onclick: () => { reset(); onYes(); } }, yes), " ",
      h(`button.${cls}-no`, { type: "button", onclick: reset }, t("web.op.keep_it")));
  };
  const reset = () => box.replaceChildren(h(`button.${cls}`, { type: "button", onclick: ask }, label));
  reset();
  return box;
}
