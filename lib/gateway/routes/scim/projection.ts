import { invalidValue, isObject, type Json } from "./resources";

/** `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5): what of a resource an answer holds. */

const CORE_URN_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

const keyOf = (value: Json, name: string) => Object.keys(value).find((k) => k.toLowerCase() === name.toLowerCase());

/**
 * An attribute path of `attributes` or `excludedAttributes` as the names it walks: "name.givenName",
 * "emails.type" (in every entry), an extension's URN alone, or an attribute within it
 * ("urn:…:enterprise:2.0:User:manager.value"). The core schema's URN may precede any core attribute.
 */
function attributeSegments(resource: Json, raw: string): string[] {
  const path = raw.trim().replace(CORE_URN_PREFIX, "");
  if (!/^urn:/i.test(path)) return path.split(".");
  const whole = keyOf(resource, path);
  if (whole) return [whole];
  const at = path.lastIndexOf(":");
  return [path.slice(0, at), ...path.slice(at + 1).split(".")];
}

/** Only what the path names of a value (in each entry of a list), or undefined when it names nothing there. */
function picked(value: unknown, segments: string[]): unknown {
  if (segments.length === 0) return value;
  if (Array.isArray(value)) return value.map((entry) => picked(entry, segments) ?? {});
  if (!isObject(value)) return undefined;
  const key = keyOf(value, segments[0]!);
  if (key === undefined) return undefined;
  const inner = picked(value[key], segments.slice(1));
  return inner === undefined ? undefined : { [key]: inner };
}

/** Two picks of one value together. */
function merged(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return a.map((entry, i) => merged(entry, b[i]));
  if (isObject(a) && isObject(b)) {
    const out: Json = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = key in out ? merged(out[key], value) : value;
    return out;
  }
  return b ?? a;
}

/** A value without what the path names (in each entry of a list). */
function dropped(value: unknown, segments: string[]): unknown {
  if (Array.isArray(value)) return value.map((entry) => dropped(entry, segments));
  if (!isObject(value)) return value;
  const key = keyOf(value, segments[0]!);
  if (key === undefined) return value;
  const { [key]: inner, ...rest } = value;
  return segments.length === 1 ? rest : { ...value, [key]: dropped(inner, segments.slice(1)) };
}

/** RFC 7644 §3.4.2.5: `attributes` keeps only those (id and schemas always), `excludedAttributes` drops those. */
export function project(resource: Json, attributes: string[] | null, excluded: string[] | null): Json {
  if (attributes && attributes.length) {
    let out: Json = { schemas: resource.schemas, id: resource.id };
    for (const raw of attributes) out = merged(out, picked(resource, attributeSegments(resource, raw))) as Json;
    return out;
  }
  if (excluded && excluded.length) {
    let out: Json = resource;
    for (const raw of excluded) {
      const segments = attributeSegments(resource, raw);
      const top = segments[0]!.toLowerCase();
      if (segments.length === 1 && (top === "id" || top === "schemas")) continue;
      out = dropped(out, segments) as Json;
    }
    return out;
  }
  return resource;
}

/** The most attribute names `attributes` or `excludedAttributes` may list (a projection walks the resource once per name). */
export const MAX_PROJECTED_ATTRIBUTES = 100;

/** The attribute names a list query names (comma separated), each once whatever its case; a SCIM 400 beyond MAX_PROJECTED_ATTRIBUTES. */
export function attributeList(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  const seen = new Map<string, string>();
  for (const name of value.split(",")) {
    const trimmed = name.trim();
    if (trimmed && !seen.has(trimmed.toLowerCase())) seen.set(trimmed.toLowerCase(), trimmed);
  }
  if (seen.size > MAX_PROJECTED_ATTRIBUTES) throw invalidValue(`attributes and excludedAttributes list at most ${MAX_PROJECTED_ATTRIBUTES} names`);
  return [...seen.values()];
}

/** Whether a projection leaves a group's members out (so they need not be read). */
export function wantsMembers(attributes: string[] | null, excluded: string[] | null): boolean {
  if (attributes && attributes.length) return attributes.some((a) => /(^|:)members(\.|$)/i.test(a));
  if (excluded) return !excluded.some((a) => /(^|:)members$/i.test(a));
  return true;
}
