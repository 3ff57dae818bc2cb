// node verify_cli.mjs FILE... -> one JSON line per file: what the in-browser verifier says
// ({ok, error, checked, notes} or {unreadable}), for the tests that hold it against the
// Python verifier on the same documents.
import { readFileSync } from "node:fs";
import { Unreadable, verifyDocument } from "../../../server/web/verify.js";

for (const path of process.argv.slice(2)) {
  let out;
  try {
    const report = await verifyDocument(JSON.parse(readFileSync(path, "utf8")));
    out = { ok: report.ok, error: report.error, checked: report.checked, notes: report.notes };
  } catch (exc) {
    if (!(exc instanceof Unreadable) && !(exc instanceof SyntaxError)) throw exc;
    out = { unreadable: exc.message };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
