// Passkeys in the browser (v1.4, PROTOCOL.md "Accounts"): made on the account page,
// listed and removed there; signing in with one from the lobby, no name typed (they are
// discoverable credentials). Options and credentials travel in WebAuthn Level 3's JSON
// forms: PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON
// and the credential's toJSON() where the browser has them, else the small fallback
// below (base64url without padding both ways). No build step, no library.

import { fill, h } from "./dom.js";
import { account } from "./store.js";

// Every text a person reads here (kept together so that it can move into catalogues).
const T = {
  title: "Passkeys",
  help: "A passkey signs you in on this device (or any device your passkeys sync to) with your fingerprint, face or screen lock: no token to copy, no name to type.",
  none: "No passkeys yet.",
  label: "Name it",
  add: "Create a passkey",
  added: (label) => `Passkey “${label || "unnamed"}” created. Next time, choose “Sign in with a passkey”.`,
  remove: "Remove",
  removed: "Passkey removed. The devices it signed in stay until you sign them out.",
  unnamed: "unnamed passkey",
  since: (at) => `created ${at.slice(0, 10)}`,
  used: (at) => (at ? `last used ${at.slice(0, 16).replace("T", " ")}` : "never used"),
  signIn: "Sign in with a passkey",
  cancelled: "No passkey was used (cancelled, or none for this site on this device).",
  badSite: "This browser refuses passkeys for this address (an IP address is no site name): open the page by its name, such as localhost, or the organiser's public address.",
  unsupported: "This browser cannot use passkeys here (they need a secure page: https, or localhost).",
  defaultLabel: () => `passkey on ${navigator.platform || "this device"}`.slice(0, 64),
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
      h("strong.label", p.label || T.unnamed), h("span.small.muted", ` ${T.since(p.created_at)}, ${T.used(p.last_used_at)} `),
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
