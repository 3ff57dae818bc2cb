// The account page (/account, v1.4 accounts): the devices signed in to this account, each
// revocable, all others at once; approving a device link (the code typed, or filled in
// from ?code=, its label shown before asking); and, signed out, signing this browser in by
// a link approved on another device. PROTOCOL.md "Accounts".

import { fill, h } from "./dom.js";
import { ServerError } from "./net.js";
import { passkeySection } from "./passkeys.js";
import { account } from "./store.js";
import { dateOnly, dateTime, t, tn } from "./i18n.js";

// Every text a person reads here (kept together so that it can move into catalogues).
const T = {
  get title() { return t("web.acct.title"); },
  get devices() { return t("web.acct.devices"); },
  kind: (kind) => (["token", "link", "passkey"].includes(kind) ? t(`web.acct.kind.${kind}`) : kind),
  get unnamed() { return t("web.acct.unnamed"); },
  get current() { return t("web.acct.current"); },
  get revoke() { return t("web.signout.button"); },
  get revokeOthers() { return t("web.acct.revoke_others"); },
  revokedOthers: (n) => tn("web.acct.revoked_others", n),
  since: (at) => t("web.acct.since", { when: dateOnly(at) }),
  seen: (at) => t("web.acct.seen", { when: dateTime(at) }),
  get approveTitle() { return t("web.acct.approve_title"); },
  get approveHelp() { return t("web.acct.approve_help"); },
  get code() { return t("web.acct.code"); },
  get next() { return t("web.acct.next"); },
  ask: (label, name) => t("web.acct.ask", { label: label || t("web.acct.an_unnamed"), name }),
  get approve() { return t("web.acct.approve"); },
  get cancel() { return t("web.cancel"); },
  approved: (label) => (label ? t("web.acct.approved", { label }) : t("web.acct.approved_unnamed")),
  get linkTitle() { return t("web.acct.link_title"); },
  get linkHelp() { return t("web.acct.link_help"); },
  get start() { return t("web.acct.start"); },
  get showCode() { return t("web.acct.show_code"); },
  get waiting() { return t("web.acct.waiting"); },
  get expired() { return t("web.acct.expired"); },
  signedIn: (name) => t("web.acct.signed_in", { name }),
  get signedOut() { return t("web.acct.signed_out"); },
  get deleteTitle() { return t("web.acct.delete_title"); },
  deleteHelp: (name) => t("web.acct.delete_help", { name }),
  get deleteName() { return t("web.acct.delete_name"); },
  get deleteGo() { return t("web.acct.delete_go"); },
  get deleted() { return t("web.acct.deleted"); },
  // the device's label, sent to the server and shown on the other device: in the page's language
  browserLabel: () => t("web.acct.browser_label", { platform: navigator.platform || t("web.acct.this_computer") }).slice(0, 64),
};

/** Render the page into `main`; returns what stops its timers. */
export async function accountPage(main, link, changed = () => {}) {
  let stopped = false;
  const stop = () => { stopped = true; };
  const render = () => (account.token ? signedInView(main, link, changed, render, stop) : linkView(main, link, changed, render, () => stopped));
  const off = link.on("signed_out", () => { if (!stopped) render(); });
  await render();
  return () => { stop(); off(); };
}

async function signedInView(main, link, changed, render, stop) {
  const status = h("p.status", { role: "status" });
  const list = h("ul.devices");
  const refresh = async () => {
    const reply = await link.call("devices");
    fill(list, reply.items.map((d) => deviceItem(d, link, refresh, render)));
  };
  const others = h("button.revoke-others", { type: "button", onclick: async () => {
    const reply = await link.call("revoke_other_devices");
    status.textContent = T.revokedOthers(reply.count);
    await refresh();
  } }, T.revokeOthers);
  fill(main, h("h1", T.title), h("p", T.signedIn(account.name || "?")),
    approveBox(link, refresh), passkeySection(link), h("h2", T.devices), list, others, status, deleteBox(main, link, changed, stop));
  try {
    await refresh();
  } catch (exc) {
    status.textContent = exc.message;
  }
}

function deviceItem(d, link, refresh, render) {
  const revoke = h("button.revoke", { type: "button", onclick: async () => {
    await link.call("revoke_device", { device: d.id });
    if (d.current) {
      account.forget();
      link.player = null;
      render();
    } else await refresh();
  } }, T.revoke);
  return h("li.device", { dataset: { id: String(d.id), current: d.current ? "1" : "" } },
    h("strong.label", { translate: d.label ? "no" : null }, d.label || T.unnamed), " ", h("span.kind.muted", `(${T.kind(d.kind)})`),
    d.current ? h("span.current", ` — ${T.current}`) : null,
    h("span.small.muted", ` ${T.since(d.created_at)}, ${T.seen(d.last_seen_at)} `), revoke);
}

function deleteBox(main, link, changed, stop) {
  const name = account.name || "";
  const msg = h("p.delete-msg", { role: "alert" });
  const go = h("button.danger.delete-go", { type: "button", disabled: true, onclick: async () => {
    try {
      await link.call("delete_account", { confirm: typed.value });
      stop(); // the signed_out that follows changes this page no more
      account.forget();
      link.player = null;
      changed();
      fill(main, h("h1", T.title), h("p.deleted", T.deleted));
    } catch (exc) {
      msg.textContent = exc.message;
    }
  } }, T.deleteGo);
  const typed = h("input#delete-name", { name: "confirm", autocomplete: "off", oninput: () => { go.disabled = typed.value !== name; } });
  return h("details.delete-account", h("summary", T.deleteTitle), h("p.small", T.deleteHelp(name)),
    h("label", { for: "delete-name" }, T.deleteName), typed, go, msg);
}

function approveBox(link, refresh) {
  const msg = h("p.link-msg", { role: "status" });
  const code = h("input#link-code", { name: "code", autocomplete: "off", maxlength: "9", placeholder: t("web.acct.code_placeholder"),
    value: new URLSearchParams(location.search).get("code") || "" });
  const ask = h("div.link-ask");
  const form = h("form.link-approve", { onsubmit: async (e) => {
    e.preventDefault();
    fill(ask);
    msg.textContent = "";
    const typed = code.value.trim();
    try {
      const info = await link.call("link_info", { code: typed });
      fill(ask, h("p.ask", T.ask(info.label, account.name || "?")),
        h("button.primary.approve-yes", { type: "button", onclick: async () => {
          fill(ask);
          try {
            const done = await link.call("link_approve", { code: typed });
            msg.textContent = T.approved(done.device.label);
            code.value = "";
            await refresh();
          } catch (exc) {
            msg.textContent = exc.message;
          }
        } }, T.approve),
        h("button.approve-no", { type: "button", onclick: () => fill(ask) }, T.cancel));
    } catch (exc) {
      msg.textContent = exc.message;
    }
  } }, h("label", { for: "link-code" }, T.code), code, h("button", { type: "submit" }, T.next));
  return h("section.approve", h("h2", T.approveTitle), h("p.small", T.approveHelp), form, ask, msg);
}

function linkView(main, link, changed, render, stopped) {
  const msg = h("p.link-msg", { role: "status" });
  const shown = h("div.link-code");
  const start = h("button.primary.link-start", { type: "button", onclick: async () => {
    start.disabled = true;
    try {
      const code = await link.call("link_start", { label: T.browserLabel() });
      fill(shown, h("p", T.showCode), h("p.code", h("code#shown-code", code.code)), h("p.muted", T.waiting));
      const reply = await poll(link, code, stopped);
      if (!reply) return;
      account.save(reply.token, reply.player.name);
      link.player = reply.player;
      changed();
      render();
    } catch (exc) {
      fill(shown);
      msg.textContent = exc instanceof ServerError && exc.code === "expired" ? T.expired : exc.message;
      start.disabled = false;
    }
  } }, T.start);
  fill(main, h("h1", T.linkTitle), h("p", T.linkHelp), start, shown, msg);
}

async function poll(link, code, stopped) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, code.interval_s * 1000));
    if (stopped()) return null;
    try {
      return await link.call("link_poll", { poll: code.poll });
    } catch (exc) {
      if (!(exc instanceof ServerError) || exc.quota || !["authorization_pending", "rate_limited"].includes(exc.code)) throw exc; // a quota is never polled again
    }
  }
}

export const ACCOUNT_TEXTS = T;
