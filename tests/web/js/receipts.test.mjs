// The browser's receipt check (server/web/receipts.js) says its differences in the page's
// language: English as the Python verifier words them, said again with said.js's `speak`.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as i18n from "../../../server/web/i18n.js";
import { checkReceipt } from "../../../server/web/receipts.js";
import { speak } from "../../../server/web/said.js";
import { readPo } from "./catalogue.mjs";

test("a receipt's difference: English as the verifier says it, Spanish with speak", async () => {
  const why = await checkReceipt({ player: { id: 1 }, actions: [] }, 0, "00");
  assert.equal(why, "the record is malformed: no tournament commitment");
  const lacks = await checkReceipt({ tournament: { commitment: "ab" }, player: { id: 1 }, actions: [] }, 3, "00");
  assert.equal(lacks, "the record lacks acknowledged actions: it has 0, the receipt acknowledges 3");
  i18n.setMessages("es", readPo("es"), readPo("en"));
  try {
    assert.equal(speak(why), "el registro está mal formado: falta el compromiso del torneo");
    assert.equal(speak(lacks), "al registro le faltan acciones confirmadas: tiene 0, el recibo confirma 3");
  } finally {
    i18n.setMessages("en", readPo("en"));
  }
});
