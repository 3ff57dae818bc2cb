// A tournament's public beacon as the lobby and /t/ID show it (RNG.md "Public beacon"):
// from SUMMARY's `beacon` {network, chain_hash, round[, signature]} and `void`, which
// network and round, and whether the round is still awaited, used (verified: the deal
// comes from it) or the tournament void (the round could not be had in time).

import { h, localTime } from "./dom.js";
import { BUILT_IN, roundTime } from "./beacon.js";
import { t as tr } from "./i18n.js";

/** "awaited", "used" or "void" for a tournament with a beacon; null without one. */
export function beaconState(t) {
  if (!t || !t.beacon) return null;
  if (t.void) return "void";
  return t.beacon.signature ? "used" : "awaited";
}

/** What the state means, in words (the round's time only for a network the page knows). */
export function beaconText(t) {
  const state = beaconState(t);
  if (state === null) return "";
  const b = t.beacon;
  const net = BUILT_IN[b.network];
  if (state === "void") return tr("web.beacon.void_text");
  if (state === "used") return tr("web.beacon.used_text");
  if (!net) return tr("web.beacon.awaited_text");
  return tr("web.beacon.awaited_due_text", { when: localTime(new Date(roundTime(net, b.round) * 1000).toISOString()) });
}

/** The beacon's line: `p.beacon` with `data-beacon` the state, or null without a beacon. */
export function beaconLine(t) {
  const state = beaconState(t);
  if (state === null) return null;
  const b = t.beacon;
  const chain = String(b.chain_hash || "");
  return h(`p.beacon.small.b-${state}`, { "data-beacon": state },
    h(`span.tag.beacon-${state}`, state === "void" ? tr("web.tag.void") : tr("web.beacon.tag")), " ",
    tr("web.beacon.line", { network: b.network, round: String(b.round) }),
    chain ? [" · ", tr("web.beacon.chain"), " ", h("code", { title: tr("web.beacon.chain_title", { chain }) }, `${chain.slice(0, 8)}…`)] : null,
    ` · ${beaconText(t)}`);
}
