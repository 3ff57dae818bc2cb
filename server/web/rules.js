// What both engines share: statuses, the action errors, and pydantic-like messages for a
// malformed action (so the verifier's first difference reads as the Python one does).

export const PLAYING = "playing";
export const WON = "won";
export const LOST = "lost";
export const RESIGNED = "resigned";
export const TIMED_OUT = "timed_out";

/** An action that changed nothing (server/games/base.py ActionError). */
export class ActionError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}
export class IllegalAction extends ActionError {}
export class MalformedAction extends ActionError {}

/** One validation failure: `loc` parts joined by dots, as server/games/base.first_error. */
export class FieldError extends Error {
  constructor(loc, msg) {
    super(loc.length ? `${loc.join(".")}: ${msg}` : msg);
  }
}

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function tagText(v) {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return String(v);
}

/** The variant a discriminated action names, or a FieldError as pydantic words it. */
export function discriminate(data, tags) {
  if (!isObject(data)) {
    throw new FieldError([], "Input should be a valid dictionary or object to extract fields from");
  }
  if (!("kind" in data)) throw new FieldError([], "Unable to extract tag using discriminator 'kind'");
  const kind = data.kind;
  if (typeof kind !== "string" || !tags.includes(kind)) {
    const expected = tags.map((t) => `'${t}'`).join(", ");
    throw new FieldError(
      [],
      `Input tag '${tagText(kind)}' found using 'kind' does not match any of the expected tags: ${expected}`,
    );
  }
  return kind;
}

/** Extra keys of an action object (models forbid them); checked after the fields. */
export function noExtras(data, kind, known) {
  for (const key of Object.keys(data)) {
    if (!known.includes(key)) throw new FieldError([kind, key], "Extra inputs are not permitted");
  }
}

/** A strict integer within [lo, hi] (pydantic: Field(strict=True, ge, le)). */
export function strictInt(value, loc, lo, hi) {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new FieldError(loc, "Input should be a valid integer");
  }
  if (value < lo) throw new FieldError(loc, `Input should be greater than or equal to ${lo}`);
  if (value > hi) throw new FieldError(loc, `Input should be less than or equal to ${hi}`);
  return value;
}

/** A lax integer (pydantic's int in lax mode: bools and integral numbers). */
export function laxInt(value) {
  if (value === true) return 1;
  if (value === false) return 0;
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) return parseInt(value, 10);
  return undefined;
}
