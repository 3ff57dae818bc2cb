// One logical connection to the server's WebSocket (same origin, /ws): request/reply by
// id, pushes by type, reconnection with back-off, re-authentication, and the resend of
// whatever was in flight when the connection dropped (an act keeps its seq, so the
// server answers a stored one with `duplicate: true`). Nothing secret goes in a URL.

import { errorText, isQuota, t } from "./i18n.js";
import { account } from "./store.js";

export class ServerError extends Error {
  constructor(reply, request = null) {
    super(errorText(reply, request)); // a quota, else reason.<reason>, else the English message
    this.code = reply.code;
    this.reply = reply;
    this.quota = isQuota(reply) ? reply.limit : null; // PROTOCOL v1.4: a limit, not a flood
  }
}

export const FLOOD_RETRIES = 3;

/** Whether a refusal is the server's "too many messages: slow down" (rate_limited without
 * `limit`): the message changed nothing and goes again after a pause. A quota (with
 * `limit`: clubs owned, a club's events, wrong codes) is shown, never resent. */
export function floodRefusal(reply) {
  return reply.type === "error" && reply.code === "rate_limited" && !isQuota(reply) && reply.reason === "too_many_messages";
}
export class Offline extends Error {}

const RESENDABLE = new Set(["act", "join", "state", "tournaments", "subscribe", "unsubscribe",
  "standings_page", "record", "ping", "hint"]);

export class Link {
  constructor(url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`) {
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {msg, resolve, reject}
    this.listeners = new Map(); // push type -> Set(fn)
    this.statusListeners = new Set();
    this.reconnectHooks = new Set();
    this.online = false;
    this.attempt = 0;
    this.offset = 0; // server time - local time, ms (from ping)
    this.player = null;
    this.retryAt = 0;
    this.ready = null;
    this.connect();
  }

  connect() {
    let opened;
    this.ready = new Promise((resolve) => (opened = resolve));
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = async () => {
      this.attempt = 0;
      try {
        if (account.token) await this.authenticate(account.token);
      } catch (exc) {
        if (exc instanceof ServerError && exc.code === "unauthorized") account.forget();
      }
      this.online = true;
      this.emitStatus();
      for (const { msg } of this.pending.values()) ws.send(JSON.stringify(msg)); // resend
      this.syncClock();
      for (const hook of this.reconnectHooks) hook();
      opened();
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = () => this.dropped(ws);
    ws.onerror = () => {};
  }

  dropped(ws) {
    if (ws !== this.ws) return;
    this.online = false;
    for (const [id, p] of this.pending) {
      if (!RESENDABLE.has(p.msg.type)) {
        this.pending.delete(id);
        p.reject(new Offline(t("web.net.dropped")));
      }
    }
    const delay = Math.min(10000, 500 * 2 ** this.attempt) * (0.75 + Math.random() / 2);
    this.attempt++;
    this.retryAt = Date.now() + delay;
    this.emitStatus();
    setTimeout(() => this.connect(), delay);
  }

  receive(raw) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if ("re" in msg && msg.re !== null && this.pending.has(msg.re)) {
      const p = this.pending.get(msg.re);
      if (floodRefusal(msg) && (p.floods || 0) < FLOOD_RETRIES) { // slow down, then again
        p.floods = (p.floods || 0) + 1;
        setTimeout(() => this.resend(msg.re), 1000 * 2 ** (p.floods - 1));
        return;
      }
      this.pending.delete(msg.re);
      if (msg.type === "error") p.reject(new ServerError(msg, p.msg));
      else p.resolve(msg);
      return;
    }
    if (msg.type === "signed_out") { // v1.4: this device was revoked; the token is dead
      account.forget();
      this.player = null;
    }
    if (!("re" in msg)) for (const fn of this.listeners.get(msg.type) || []) fn(msg);
  }

  /** Send and wait for the reply; an error reply rejects with ServerError. While offline
   * the message waits and goes out once the connection (and authentication) is back. */
  request(msg) {
    const id = this.nextId++;
    const full = { ...msg, id };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { msg: full, resolve, reject });
      if (this.online || msg.type === "auth" || msg.type === "register") {
        if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(full));
        else if (!RESENDABLE.has(msg.type)) {
          this.pending.delete(id);
          reject(new Offline(t("web.net.not_connected")));
        }
      }
    });
  }

  resend(id) {
    const p = this.pending.get(id);
    if (p && this.online && this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(p.msg));
  }

  call(type, fields = {}) {
    return this.request({ type, ...fields });
  }

  async authenticate(token) {
    const reply = await this.request({ type: "auth", token });
    this.player = reply.player;
    return reply.player;
  }

  async register(name) {
    const reply = await this.request({ type: "register", name });
    account.save(reply.token, reply.player.name);
    this.player = reply.player;
    return reply.player;
  }

  signOut() {
    account.forget();
    this.player = null;
    if (this.ws) this.ws.close(); // a fresh, unauthenticated connection
  }

  async syncClock() {
    try {
      const t0 = Date.now();
      const pong = await this.call("ping");
      const t1 = Date.now();
      const server = Date.parse(pong.server_time);
      if (!Number.isNaN(server)) this.offset = server - (t0 + t1) / 2;
    } catch {
      /* keep the last offset */
    }
  }

  /** The server's clock now, as ms since the epoch. */
  now() {
    return Date.now() + this.offset;
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  onStatus(fn) {
    this.statusListeners.add(fn);
    fn(this);
    return () => this.statusListeners.delete(fn);
  }

  onReconnect(fn) {
    this.reconnectHooks.add(fn);
    return () => this.reconnectHooks.delete(fn);
  }

  emitStatus() {
    for (const fn of this.statusListeners) fn(this);
  }
}
