// The .po catalogues read in node for the JS tests (server/i18n/catalogues/*.po): the same
// {key: text | [one, other]} table the server sends the browser as /i18n/<lang>.json.
import { readFileSync } from "node:fs";

const FOLDER = new URL("../../../server/i18n/catalogues/", import.meta.url);

function unquote(line) {
  return JSON.parse(line.slice(line.indexOf('"')));
}

export function readPo(lang) {
  const text = readFileSync(new URL(`${lang.replace("-", "_")}.po`, FOLDER), "utf8");
  const out = {};
  for (const block of text.split(/\n\s*\n/)) {
    const fields = {};
    let field = null;
    for (const raw of block.split("\n")) {
      const line = raw.trim();
      if (!line || line.startsWith("#")) continue;
      const m = /^(msgid_plural|msgid|msgstr(?:\[\d\])?)\s/.exec(line);
      if (m) {
        field = m[1];
        fields[field] = unquote(line);
      } else if (field && line.startsWith('"')) fields[field] += unquote(line);
    }
    if (!fields.msgid) continue;
    out[fields.msgid] = "msgid_plural" in fields ? [fields["msgstr[0]"], fields["msgstr[1]"]] : fields.msgstr;
  }
  return out;
}
