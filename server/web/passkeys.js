// Passkeys in the browser (v1.4, PROTOCOL.md "Accounts"): made on the account page,
// listed and removed there; signing in with one from the lobby, no name typed (they are
// discoverable credentials). Options and credentials travel in WebAuthn Level 3's JSON
// forms: PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON
// and the credential's toJSON() where the browser has them, else the small fallback
// below (base64url without padding both ways). No build step, no library.

import { fill, h } from "./dom.js";
import { account } from "./store.js";
import { dateOnly, dateTime, t } from "./i18n.js";

// Every text a person reads here, from the catalogue (web.passkey.*).
const T = {
  get title() { return t("web.passkey.title"); },
  get help() { return t("web.passkey.help"); },
  get none() { return t("web.passkey.none"); },
  get label() { return t("web.passkey.label"); },
  get add() { return t("web.passkey.add"); },
  added: (label) => t("web.passkey.added", { label: label || t("web.passkey.unnamed_short") }),
  get remove() { return t("web.passkey.remove"); },
  get removed() { return t("web.passkey.removed"); },
  get unnamed() { return t("web.passkey.unnamed"); },
  since: (at) => t("web.passkey.since", { when: dateOnly(at) }),
  used: (at) => (at ? t("web.passkey.used", { when: dateTime(at) }) : t("web.passkey.never_used")),
  get signIn() { return t("web.passkey.sign_in"); },
  get cancelled() { return t("web.passkey.cancelled"); },
  get badSite() { return t("web.passkey.bad_site"); },
  get unsupported() { return t("web.passkey.unsupported"); },
  defaultLabel: () => t("web.passkey.default_label", { platform: navigator.platform || t("web.passkey.this_device") }).slice(0, 64),
};

/** Whether this page can use passkeys at all. */
export function passkeysAvailable() {
  return !!(window.PublicKeyCredential && navigator.credentials && window.isSecureContext);
}

// -- the JSON forms, with a fallback ---------------------------------------------------
function b64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "="));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0)).buffer;
}

const descriptors = (list) => (list || []).map((c) => ({ ...c, id: unb64url(c.id) }));

export function creationOptions(json) {
  if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return { ...json, challenge: unb64url(json.challenge), user: { ...json.user, id: unb64url(json.user.id) },
    excludeCredentials: descriptors(json.excludeCredentials) };
}

export function requestOptions(json) {
  if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return { ...json, challenge: unb64url(json.challenge), allowCredentials: descriptors(json.allowCredentials) };
}

export function credentialJSON(cred) {
  if (typeof cred.toJSON === "function") {
    try {
      return cred.toJSON();
    } catch {
      /* a browser whose toJSON fails: the fallback */
    }
  }
  const r = cred.response;
  const response = { clientDataJSON: b64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64url(r.attestationObject);
    if (typeof r.getTransports === "function") response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64url(r.authenticatorData);
    response.signature = b64url(r.signature);
    if (r.userHandle) response.userHandle = b64url(r.userHandle);
  }
  return { id: cred.id, rawId: b64url(cred.rawId), type: cred.type, response,
    authenticatorAttachment: cred.authenticatorAttachment || null,
    clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {} };
}

// -- the ceremonies --------------------------------------------------------------------
export async function createPasskey(link, label) {
  const { options } = await link.call("passkey_options", { purpose: "register" });
  const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
  const reply = await link.call("passkey_register", { credential: credentialJSON(cred), ...(label ? { label } : {}) });
  return reply.passkey;
}

export async function signInWithPasskey(link) {
  const { options } = await link.call("passkey_options", { purpose: "login" });
  const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
  const reply = await link.call("passkey_login", { credential: credentialJSON(cred) });
  account.save(reply.token, reply.player.name);
  link.player = reply.player;
  return reply.player;
}

const refusal = (exc) => (exc && exc.name === "NotAllowedError" ? T.cancelled
  : exc && exc.name === "SecurityError" ? T.badSite : exc.message);

// -- the pieces of pages ---------------------------------------------------------------
/** The lobby's button (signed out): `done` once signed in. */
export function passkeySignIn(link, done) {
  if (!passkeysAvailable()) return null;
  const msg = h("p.passkey-msg.error", { role: "alert" });
  const go = h("button.passkey-signin", { type: "button", onclick: async () => {
    go.disabled = true;
    msg.textContent = "";
    try {
      await signInWithPasskey(link);
      done();
    } catch (exc) {
      msg.textContent = refusal(exc);
      go.disabled = false;
    }
  } }, T.signIn);
  return h("div.passkey-box", go, msg);
}

/** The account page's section (signed in): the passkeys, one more, remove one. */
export function passkeySection(link) {
  const list = h("ul.passkeys");
  const msg = h("p.passkey-msg", { role: "status" });
  const refresh = async () => {
    const { items } = await link.call("passkeys");
    fill(list, items.length ? items.map((p) => h("li.passkey", { dataset: { id: String(p.id) } },
      h("strong.label", { translate: p.label ? "no" : null }, p.label || T.unnamed), h("span.small.muted", ` ${T.since(p.created_at)}, ${T.used(p.last_used_at)} `),
      h("button.passkey-remove", { type: "button", onclick: async () => {
        try {
          await link.call("remove_passkey", { passkey: p.id });
          msg.textContent = T.removed;
          await refresh();
        } catch (exc) {
          msg.textContent = exc.message;
        }
      } }, T.remove))) : h("li.muted", T.none));
  };
  const label = h("input#passkey-label", { name: "label", maxlength: "64", autocomplete: "off", value: T.defaultLabel() });
  const form = h("form.passkey-add", { onsubmit: async (e) => {
    e.preventDefault();
    msg.textContent = "";
    try {
      const added = await createPasskey(link, label.value.trim());
      msg.textContent = T.added(added.label);
      await refresh();
    } catch (exc) {
      msg.textContent = refusal(exc);
    }
  } }, h("label", { for: "passkey-label" }, T.label), label, h("button.primary", { type: "submit" }, T.add));
  const body = passkeysAvailable() ? [form] : [h("p.muted", T.unsupported)];
  refresh().catch((exc) => { msg.textContent = exc.message; });
  return h("section.passkeys-box", h("h2", T.title), h("p.small", T.help), list, ...body, msg);
}

export const PASSKEY_TEXTS = T;
