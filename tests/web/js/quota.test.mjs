// The browser's connection (server/web/net.js) and a refusal by quota (PROTOCOL v1.4:
// `rate_limited` with `limit`): shown as a quota in every language and never sent again,
// where the server's "slow down" (rate_limited without `limit`) is sent again after a
// pause. A fake WebSocket; the timers driven by node's mock, no waiting.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import * as i18n from "../../../server/web/i18n.js";
import { readPo } from "./catalogue.mjs";

const sockets = [];
class FakeSocket {
  static OPEN = 1;
  constructor(url) {
    this.url = url;
    this.readyState = FakeSocket.OPEN;
    this.sent = [];
    sockets.push(this);
  }
  send(raw) {
    this.sent.push(JSON.parse(raw));
  }
  close() {}
  reply(msg) {
    this.onmessage({ data: JSON.stringify(msg) });
  }
}
globalThis.WebSocket = FakeSocket;
const { Link, ServerError } = await import("../../../server/web/net.js");

const EN = readPo("en");
const QUOTA = { code: "rate_limited", message: "you own 3 clubs already", reason: "clubs_owned", params: { max: 3 }, limit: "clubs_owned" };
const FLOOD = { code: "rate_limited", message: "too many messages: slow down", reason: "too_many_messages" };

async function opened() {
  mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
  i18n.setMessages("en", EN, EN);
  const link = new Link("ws://test/ws");
  const ws = sockets.at(-1);
  await ws.onopen();
  return { link, ws, sent: (type) => ws.sent.filter((m) => m.type === type) };
}

test("a quota is refused at once, said as a quota, and never sent again", async () => {
  const { link, ws, sent } = await opened();
  const asked = link.call("create_club", { name: "Quarto" });
  ws.reply({ type: "error", re: sent("create_club")[0].id, ...QUOTA });
  await assert.rejects(asked, (exc) => exc instanceof ServerError && exc.quota === "clubs_owned"
    && exc.message === "You own 3 clubs, the most a player may: hand one over before creating another.");
  mock.timers.tick(60_000);
  assert.equal(sent("create_club").length, 1);
  mock.timers.reset();
});

test("a flood's 'slow down' is sent again after a pause, then answered", async () => {
  const { link, ws, sent } = await opened();
  const asked = link.call("create_club", { name: "Quarto" });
  const id = sent("create_club")[0].id;
  ws.reply({ type: "error", re: id, ...FLOOD });
  mock.timers.tick(999);
  assert.equal(sent("create_club").length, 1);
  mock.timers.tick(1);
  assert.equal(sent("create_club").length, 2);
  ws.reply({ type: "club", re: id, club: { id: 4, name: "Quarto" } });
  assert.equal((await asked).club.id, 4);
  mock.timers.reset();
});

test("handing over to a player who owns 3 names that player; every language says it", () => {
  const reply = { type: "error", ...QUOTA };
  for (const lang of ["en", "pt-BR", "pt-PT", "es"]) {
    i18n.setMessages(lang, readPo(lang), EN);
    const mine = i18n.errorText(reply, { type: "create_club" });
    const theirs = i18n.errorText(reply, { type: "set_owner", player: "Bea" });
    assert.match(mine, /3/);
    assert.match(theirs, /^Bea .*3/);
    assert.notEqual(mine, reply.message);
    assert.match(i18n.errorText({ ...reply, limit: "codes", params: {} }), /\S/);
    assert.doesNotMatch(i18n.errorText({ ...reply, limit: "something_new" }), /\{/);
  }
  i18n.setMessages("en", EN, EN);
  assert.equal(i18n.errorText({ type: "error", ...FLOOD }), FLOOD.message); // no quota: as before
  const events = { type: "error", code: "rate_limited", limit: "club_events", message: "x" };
  assert.match(i18n.errorText({ ...events, reason: "club_events_open", params: { id: 3, max: 5 } }), /already has 5 events open or scheduled/);
  assert.match(i18n.errorText({ ...events, reason: "club_events_day", params: { id: 3, max: 20 } }), /created 20 events in the last 24 hours/);
  assert.match(i18n.errorText({ ...events, reason: "something_else" }), /limit of events/);
});
