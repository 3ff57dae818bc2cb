// node verify_cli.mjs [--beacon-networks FILE] FILE... -> one JSON line per file: what the
// in-browser verifier says ({ok, error, checked, notes} or {unreadable}), for the tests that
// hold it against the Python verifier on the same documents. With --catalogue FILE (a
// `GET /i18n/<lang>.json` body) also `spoken` and `spoken_error`: its check lines and
// difference (or why it is unreadable) said in that language, as the verify page says them.
import { readFileSync } from "node:fs";
import { BUILT_IN, networksFromJson } from "../../../server/web/beacon.js";
import { Unreadable } from "../../../server/web/shapes.js";
import { verifyDocument } from "../../../server/web/verify.js";
import { setMessages } from "../../../server/web/i18n.js";
import { speak } from "../../../server/web/said.js";

const args = process.argv.slice(2);
let networks = BUILT_IN;
if (args[0] === "--beacon-networks") {
  networks = await networksFromJson(JSON.parse(readFileSync(args[1], "utf8")));
  args.splice(0, 2);
}
let spoken = false;
if (args[0] === "--catalogue") {
  const catalogue = JSON.parse(readFileSync(args[1], "utf8"));
  setMessages(catalogue.lang, catalogue.messages);
  spoken = true;
  args.splice(0, 2);
}
for (const path of args) {
  let out;
  try {
    const report = await verifyDocument(JSON.parse(readFileSync(path, "utf8")), { networks });
    out = { ok: report.ok, error: report.error, checked: report.checked, notes: report.notes };
    if (spoken) out.spoken = [...report.checked, ...report.notes].map((line) => speak(line));
    if (spoken) out.spoken_error = report.error === null ? null : speak(report.error);
  } catch (exc) {
    if (!(exc instanceof Unreadable) && !(exc instanceof SyntaxError)) throw exc;
    out = { unreadable: exc.message };
    if (spoken && exc instanceof Unreadable) out.spoken_unreadable = speak(exc.message);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
