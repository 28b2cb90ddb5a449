import { scimPatch, type ScimPatchOperation } from "scim-patch";
import { parse as parseScimFilter, stringify as stringifyScimFilter, type Filter } from "scim2-parse-filter";
import { CORE_SCHEMA, ENTERPRISE_USER, isObject, managerOf, PATCH_OP, ScimError, spelled, spelledPath, WITH_PRIMARY, type Json, type ResourceKind } from "./resources";

/**
 * SCIM PATCH (RFC 7644 §3.5.2), applied by scim-patch to the resource as it is: the operations as
 * Okta and Entra ID send them are checked (sizes, paths that reach past data) and spelled as the
 * schemas spell their attributes before the library reads them.
 */

/**
 * Names a JavaScript value answers for itself, not as data. scim-patch walks a path, and each key of a
 * value (itself read as a path), by assignment, stepping into inherited names too: `toString.x` or
 * `constructor.prototype.x` changed a function or prototype every object of the process shares, and
 * `hasOwnProperty.call` broke every later request. None is a SCIM attribute name.
 */
const OBJECT_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
/** What a walk over JSON data could step into besides data: the names arrays, strings, numbers and booleans inherit. */
const INHERITED_NAMES = new Set([...OBJECT_NAMES, ...[Array, String, Number, Boolean].flatMap((type) => Object.getOwnPropertyNames(type.prototype))]);

/**
 * Whether a path reaches past data: any name in it (split at everything that is not part of an
 * attribute name, filters included) is one of Object.prototype's, or one before the last is one a
 * JSON value inherits (the last is only assigned: `emails.length` sets an own property).
 */
function reachesPrototype(path: string): boolean {
  const names = withoutComparedValues(path)
    .split(/[^\w$-]+/)
    .filter(Boolean);
  return names.some((name, i) => OBJECT_NAMES.has(name) || (i < names.length - 1 && INHERITED_NAMES.has(name)));
}

/**
 * The path without the quoted values of its filters that scim-patch only compares: `emails[value eq
 * "big.boss@corp.example"]` names no `big`. Only a value inside brackets, with no escape, colon or
 * bracket in it: scim-patch does not read quotes when it splits a path (at its last colon, and at
 * periods outside brackets), so a value holding one of those could be walked, and keeps its names.
 */
function withoutComparedValues(path: string): string {
  let out = path;
  for (let before = ""; before !== out; ) {
    before = out;
    out = out.replace(/(\[[^\]"]*)"[^"\\:[\]]*"/, "$1 ");
  }
  return out;
}

/**
 * How much one PATCH may ask. scim-patch splits a path with a pattern whose time grows with the
 * square of the path's length (a 32 KB path held the process for a second), and compares each added
 * value with each one present. Identity providers send short paths and at most a hundred or so
 * member changes at a time.
 */
export const PATCH_LIMITS = { operations: 1_000, pathLength: 1_024, values: 1_000 };

/** The keys scim-patch reads as paths in an operation's value: an object's, and those of a list's objects. */
function valueKeys(value: unknown): string[] {
  const objects = Array.isArray(value) ? value : [value];
  return objects.flatMap((item) => (typeof item === "object" && item !== null && !Array.isArray(item) ? Object.keys(item) : []));
}

/** PATCH operations as Okta and Entra ID send them, made what the PATCH library reads. */
export function patchOperations(body: unknown, kind: ResourceKind): ScimPatchOperation[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ScimError(400, "the body must be a PatchOp object", "invalidSyntax");
  const schemasSent = (body as { schemas?: unknown }).schemas;
  if (schemasSent !== undefined && !(Array.isArray(schemasSent) && schemasSent.includes(PATCH_OP))) {
    throw new ScimError(400, `schemas must contain ${PATCH_OP}`, "invalidSyntax");
  }
  const ops = (body as { Operations?: unknown; operations?: unknown }).Operations ?? (body as { operations?: unknown }).operations;
  if (!Array.isArray(ops) || ops.length === 0) throw new ScimError(400, "Operations must be a non-empty array", "invalidSyntax");
  if (ops.length > PATCH_LIMITS.operations) throw new ScimError(400, `Operations holds more than ${PATCH_LIMITS.operations} operations`, "invalidValue");
  const out: ScimPatchOperation[] = [];
  ops.forEach((raw: unknown, i) => {
    if (typeof raw !== "object" || raw === null) throw new ScimError(400, `Operations[${i}] must be an object`, "invalidSyntax");
    const { op, path, value } = raw as { op?: unknown; path?: unknown; value?: unknown };
    const name = typeof op === "string" ? op.toLowerCase() : "";
    if (name !== "add" && name !== "replace" && name !== "remove") throw new ScimError(400, `Operations[${i}].op must be add, replace or remove`, "invalidSyntax");
    if (path !== undefined && typeof path !== "string") throw new ScimError(400, `Operations[${i}].path must be a string`, "invalidPath");
    // Read-only attributes echoed back are ignored.
    if (typeof path === "string" && /^(id|meta(\..*)?|schemas)$/i.test(path.trim())) return;
    const paths = [...(typeof path === "string" ? [path] : []), ...valueKeys(value)];
    const long = paths.find((p) => p.length > PATCH_LIMITS.pathLength);
    if (long !== undefined) throw new ScimError(400, `Operations[${i}]: a path or value key is longer than ${PATCH_LIMITS.pathLength} characters`, "invalidPath");
    // A group's members are changed as a set of ids (groupMemberChanges), in time that grows with their number only:
    // as many as the body holds (a full list, as Okta replaces one); any other list is applied value by value.
    const members = kind === "Group" && typeof path === "string" && spelledPath(kind, path)?.path === "members";
    if (Array.isArray(value) && value.length > PATCH_LIMITS.values && !members) throw new ScimError(400, `Operations[${i}].value holds more than ${PATCH_LIMITS.values} values`, "invalidValue");
    const prototypal = paths.find(reachesPrototype);
    if (prototypal !== undefined) {
      throw new ScimError(400, `Operations[${i}]: ${JSON.stringify(prototypal.slice(0, 64))} names what a JavaScript object inherits (such as toString, constructor or __proto__), not an attribute`, "invalidPath");
    }
    // scim-patch matches names exactly, and they are case-insensitive: path and value are spelled as the schemas do.
    const target = path ? spelledPath(kind, path) : undefined;
    if (path && !target) throw new ScimError(400, `Operations[${i}].path ${path.slice(0, 64)} is not an attribute path`, "invalidPath");
    const sent = target ? spelled(value, target.names) : value;
    if (name === "remove") {
      if (!target) throw new ScimError(400, `Operations[${i}]: remove needs a path`, "noTarget");
      // The manager, named by its id (Entra ID: `manager[value eq "id"]`, or the manager's path with the value
      // `[{ value: "id" }]`): a single-valued attribute, which scim-patch refuses to filter or remove a value from.
      // An empty value names no one: whatever manager there is goes, as with no value.
      const manager = kind === "User" ? removedManager(target.path, sent) : undefined;
      if (manager !== undefined) {
        out.push({ op: "remove", path: MANAGER_PATH, ...(manager.id === undefined ? {} : { value: { value: manager.id } }) } as ScimPatchOperation);
        return;
      }
      // Entra ID: path "members" with the values to remove (a list, or one); each becomes a value filter, as Okta sends it.
      if (/^[A-Za-z]+$/.test(target.path) && typeof sent === "object" && sent !== null) {
        for (const [j, item] of (Array.isArray(sent) ? sent : [sent]).entries()) {
          const id = (item as { value?: unknown } | null)?.value;
          if (typeof id !== "string") throw new ScimError(400, `Operations[${i}].value${Array.isArray(sent) ? `[${j}]` : ""}.value must be a string`, "invalidValue");
          out.push({ op: "remove", path: `${target.path}[value eq ${JSON.stringify(id)}]` } as ScimPatchOperation);
        }
        return;
      }
      // An extension's URN: the extension and its attributes are removed, as a complex attribute's are (RFC 7644 §3.5.2.2).
      if (extensionUrn(kind, target.path)) {
        out.push({ op: "remove", path: target.path } as ScimPatchOperation);
        return;
      }
      out.push({ op: "remove", path: target.path, ...(sent !== undefined ? { value: sent } : {}) } as ScimPatchOperation);
      return;
    }
    if (!target) {
      if (!isObject(value)) throw new ScimError(400, `Operations[${i}].value must be an object when there is no path`, "invalidValue");
      out.push(...pathlessOperations(kind, name, value, `Operations[${i}].value`));
      return;
    }
    if (value === undefined) throw new ScimError(400, `Operations[${i}].value is required for ${name}`, "invalidValue");
    // A schema's URN alone names the attributes the value holds: as that URN as a key of a path-less value
    // (the resource's own schema's, its core attributes; an extension's, the extension's). scim-patch would
    // split it at its last colon and keep the value as a junk attribute `User` of a junk extension
    // `urn:…:2.0`, leaving the resource as it was.
    const coreUrn = target.path.toLowerCase() === CORE_SCHEMA[kind].toLowerCase();
    if (coreUrn && !isObject(sent)) throw new ScimError(400, `Operations[${i}].value must be an object of ${CORE_SCHEMA[kind]}'s attributes`, "invalidValue");
    if (extensionUrn(kind, target.path) || coreUrn) {
      out.push(...pathlessOperations(kind, name, { [target.path]: sent }, `Operations[${i}].value`));
      return;
    }
    out.push(...valueOperations(name, target.path, sent));
  });
  // What the operations carry is read by scim-patch as paths in turn: each key of a value's objects, at any
  // depth, as it merges them (split at periods its own way, quotes and brackets meaning nothing there). A
  // path-less value's keys became operations of their own above, so every key left is one attribute's name
  // (RFC 7643 §2.1: a letter, then letters, digits, "-" and "_"; or "$ref") and none an object inherits.
  for (const made of out) {
    if (made.path !== undefined && reachesPrototype(made.path)) {
      throw new ScimError(400, `Operations: ${JSON.stringify(made.path.slice(0, 64))} names what a JavaScript object inherits (such as toString, constructor or __proto__), not an attribute`, "invalidPath");
    }
    const key = nestedKeys("value" in made ? made.value : undefined).find((k) => !ATTRIBUTE_KEY.test(k) || OBJECT_NAMES.has(k));
    if (key !== undefined) throw new ScimError(400, `Operations: a value's key ${JSON.stringify(key.slice(0, 64))} is not an attribute name`, "invalidValue");
  }
  return out;
}

/** An attribute's name as RFC 7643 §2.1 spells one (and `$ref`), as a key of a value's objects. */
const ATTRIBUTE_KEY = /^(?:[A-Za-z][\w-]{0,255}|\$ref)$/;

/** The keys of a value's objects, at any depth (without recursion, or spreading a long list into a call: a body may nest deeply or hold a long list). */
function nestedKeys(value: unknown): string[] {
  const keys: string[] = [];
  for (const stack = [value]; stack.length > 0; ) {
    const item = stack.pop();
    if (Array.isArray(item)) for (const inner of item) stack.push(inner);
    else if (typeof item === "object" && item !== null) {
      for (const [key, inner] of Object.entries(item)) {
        keys.push(key);
        stack.push(inner);
      }
    }
  }
  return keys;
}

const MANAGER_PATH = `${ENTERPRISE_USER}:manager`;
/** The manager's path with a value filter, with or without the extension's URN before it. */
const MANAGER_FILTERED = new RegExp(`^(?:${ENTERPRISE_USER.replace(/[.]/g, "\\.")}:)?manager\\[(.+)\\]$`, "i");

/**
 * What a remove of the manager names, where it is one: an id, by a filter `value eq "id"` on the manager's
 * path or by a value `{ value: "id" }`, `[{ value: "id" }]` or `"id"` on it; or no one (`id` undefined) for
 * an empty value (null, "", `{ value: "" }`), which removes whatever manager there is. Undefined for any other
 * remove. The manager's path may come without the extension's URN, as a filter's may.
 */
function removedManager(path: string, value: unknown): { id: string | undefined } | undefined {
  const filtered = MANAGER_FILTERED.exec(path);
  if (filtered) {
    let filter: Filter;
    try {
      filter = parseScimFilter(filtered[1]!);
    } catch {
      return undefined;
    }
    if (filter.op !== "eq" || filter.attrPath.toLowerCase() !== "value" || typeof filter.compValue !== "string") {
      throw new ScimError(400, `${path.slice(0, 64)}: a manager is removed by its value (value eq "id")`, "invalidFilter");
    }
    return { id: filter.compValue };
  }
  if ((path !== MANAGER_PATH && path.toLowerCase() !== "manager") || value === undefined) return undefined;
  const entries = Array.isArray(value) ? value : [value];
  if (entries.length === 0) return { id: undefined };
  const [entry] = entries;
  if (entries.length === 1 && managerOf(entry) === undefined) return { id: undefined };
  const id = entries.length !== 1 ? undefined : isObject(entry) ? entry.value : entry;
  if (typeof id !== "string") throw new ScimError(400, 'the manager is removed by its value: { "value": "id" }', "invalidValue");
  return { id };
}
/** The schema extensions this service knows, by the resource they extend. */
const EXTENSIONS: Record<ResourceKind, Set<string>> = { User: new Set([ENTERPRISE_USER]), Group: new Set() };
/**
 * How a schema's URN ends: a version, then the name of the resource it describes, in any case (RFC 7644
 * §3.10: `…:enterprise:2.0:User`); `…:2.0:User:user` is the attribute `user` of such an extension.
 */
const SCHEMA_URN: Record<ResourceKind, RegExp> = { User: /^urn:[^[\]"\s]+:\d+(?:\.\d+)*:User$/i, Group: /^urn:[^[\]"\s]+:\d+(?:\.\d+)*:Group$/i };

/**
 * Whether a path is an extension's URN alone: one this service knows, or one it keeps as sent (an
 * identity provider's own), told by how schema URNs are named, the resource's core schema aside.
 */
function extensionUrn(kind: ResourceKind, path: string): boolean {
  return EXTENSIONS[kind].has(path) || (SCHEMA_URN[kind].test(path) && path.toLowerCase() !== CORE_SCHEMA[kind].toLowerCase());
}

/** A path that is one attribute's name, nothing before or after it. */
const ATTRIBUTE_NAME = /^[A-Za-z$][\w$-]*$/;
/** The single-valued complex attributes whose sub-attributes a path-less add or replace sets one by one. */
const SINGLE_VALUED_COMPLEX = new Set(["name", ENTERPRISE_USER]);

/**
 * A path-less add or replace. Each key of the value is an attribute path (RFC 7644 §3.5.2.1). A complex
 * attribute's object sets the sub-attributes it names and leaves the others (§3.5.2.3): each becomes an
 * operation on its path; so does a multi-valued attribute's list added, whose values already there are
 * not added again (§3.5.2.1).
 */
function pathlessOperations(kind: ResourceKind, name: "add" | "replace", value: Json, at: string): ScimPatchOperation[] {
  const out: ScimPatchOperation[] = [];
  const rest: Record<string, unknown> = {};
  // The resource's own schema URN as a key holds core attributes (as its URN before a path does).
  const core = CORE_SCHEMA[kind].toLowerCase();
  const entries = Object.entries(value).flatMap(([k, v]) => {
    if (k.toLowerCase() !== core) return [[k, v] as const];
    if (!isObject(v)) throw new ScimError(400, `${at}.${k}: must be an object of the schema's attributes`, "invalidValue");
    return Object.entries(v);
  });
  for (const [k, v] of entries) {
    if (/^(id|meta|schemas)$/i.test(k)) continue;
    const key = spelledPath(kind, k);
    if (!key) throw new ScimError(400, `${at}: ${JSON.stringify(k.slice(0, 64))} is not an attribute path`, "invalidPath");
    if (key.path === MANAGER_PATH) {
      out.push(...valueOperations(name, key.path, spelled(v, key.names)));
      continue;
    }
    const extension = extensionUrn(kind, key.path);
    if (extension && !isObject(v)) {
      // Null is unassigned (RFC 7643 §2.5): the extension goes, as with a remove.
      if (v !== null) throw new ScimError(400, `${at}: ${key.path} must be an object`, "invalidValue");
      out.push({ op: "remove", path: key.path } as ScimPatchOperation);
      continue;
    }
    const parts = (SINGLE_VALUED_COMPLEX.has(key.path) || extension) && isObject(v) ? Object.entries(v) : undefined;
    if (!parts) {
      // A key with a value filter, a sub-attribute or a schema's URN is a path of its own: scim-patch
      // would assign it as one attribute's name (`emails[type eq "work"]` beside emails, which it leaves).
      // So is a list added: scim-patch appends a path-less value's list whole, a value already there
      // again, where an add on the attribute's path adds only the values not there (RFC 7644 §3.5.2.1).
      if (ATTRIBUTE_NAME.test(key.path) && v !== null && !(name === "add" && Array.isArray(v))) rest[key.path] = spelled(v, key.names);
      else out.push(...valueOperations(name, key.path, spelled(v, key.names)));
      continue;
    }
    for (const [sub, subValue] of parts) {
      const subPath = spelledPath(kind, `${key.path}${extension ? ":" : "."}${sub}`);
      if (!subPath || reachesPrototype(subPath.path)) throw new ScimError(400, `${at}.${k}.${sub.slice(0, 64)} is not an attribute`, "invalidPath");
      out.push(...valueOperations(name, subPath.path, spelled(subValue, subPath.names)));
    }
  }
  if (Object.keys(rest).length > 0) out.push({ op: name, value: rest } as ScimPatchOperation);
  return out;
}

/**
 * An add or replace of one path. The enterprise extension's manager is a complex attribute (RFC 7643
 * §4.3) that Entra ID sends as the manager's id alone, and clears with an empty value: kept as
 * `{ value }` (what it reads back, and what a later add merges with), and an empty one removes it.
 */
function valueOperations(op: "add" | "replace", path: string, value: unknown): ScimPatchOperation[] {
  // Null is unassigned (RFC 7643 §2.5): set to null, an attribute goes, as with a remove (scim-patch stepped into it).
  if (value === null) return [{ op: "remove", path } as ScimPatchOperation];
  const remove = { op: "remove", path: MANAGER_PATH } as ScimPatchOperation;
  if (path === MANAGER_PATH) {
    const manager = managerOf(value);
    if (manager === undefined) return [remove];
    // An id names the manager whole: the last one's displayName and $ref go with it.
    if (typeof value === "string") return [remove, { op, path, value: manager } as ScimPatchOperation];
  }
  if (path === `${MANAGER_PATH}.value` && (value === "" || value === null)) return [remove];
  return [{ op, path, value } as ScimPatchOperation];
}

/** The extension an operation removes whole, which scim-patch cannot: it splits the URN at its last colon and finds nothing. */
const removedExtension = (op: ScimPatchOperation): string | undefined =>
  op.op === "remove" && (extensionUrn("User", op.path) || extensionUrn("Group", op.path)) ? op.path : undefined;

export function applyPatch<T extends object>(resource: T, ops: ScimPatchOperation[]): T {
  if (ops.length === 0) return resource;
  // One copy, patched in place an operation at a time: each value filter is read against the
  // resource as the operations before it left it.
  let out = JSON.parse(JSON.stringify(resource)) as T;
  for (const op of ops) {
    const extension = removedExtension(op);
    if (extension !== undefined) delete (out as Json)[extension];
    else if (op.op === "remove" && op.path === MANAGER_PATH && isObject(op.value)) removeManager(out as Json, op.value.value);
    else {
      const primaries = primariesOf(out as Json);
      out = patched(out, [withStoredSpellings(out as Json, op)]);
      demoteFormerPrimaries(out as Json, primaries);
    }
  }
  return out;
}

/** Whether an entry's `primary` says true: a boolean, or Entra ID's "True" (made a boolean once the PATCH is applied). */
const isPrimary = (entry: unknown): boolean => isObject(entry) && (entry.primary === true || (typeof entry.primary === "string" && entry.primary.toLowerCase() === "true"));

/** The entries of each multi-valued attribute that are primary now (scim-patch changes entries in place: each is the same object after). */
function primariesOf(resource: Json): Set<unknown> {
  const primaries = new Set<unknown>();
  for (const attribute of WITH_PRIMARY) {
    const entries = resource[attribute];
    if (Array.isArray(entries)) for (const entry of entries) if (isPrimary(entry)) primaries.add(entry);
  }
  return primaries;
}

/**
 * An operation that made an entry primary makes the attribute's other entries not primary: "the server SHALL set
 * 'primary' to 'false' for any other values in the array" (RFC 7644 §3.5.2), and true appears at most once (RFC 7643
 * §2.4). Otherwise `add emails [{…, primary: true}]` left the old work address primary too, and the person's
 * e-mail was whichever came first.
 */
function demoteFormerPrimaries(resource: Json, before: Set<unknown>): void {
  for (const attribute of WITH_PRIMARY) {
    const entries = resource[attribute];
    if (!Array.isArray(entries)) continue;
    const now = entries.filter(isPrimary);
    if (!now.some((entry) => !before.has(entry))) continue;
    for (const entry of now) if (before.has(entry)) (entry as Json).primary = false;
  }
}

/** Removes the manager if it is the one named (a remove that names another, or none, changes nothing). */
function removeManager(resource: Json, id: unknown): void {
  const extension = resource[ENTERPRISE_USER];
  if (!isObject(extension) || !isObject(extension.manager)) return;
  const held = extension.manager.value;
  // The manager's value compares in any case (caseExact false in /Schemas), as a filter's strings do.
  if (typeof held !== "string" || typeof id !== "string" || held.toLowerCase() !== id.toLowerCase()) return;
  delete extension.manager;
}

/** A path's value filter: the attribute it selects entries of, the filter, and what follows (a sub-attribute). */
const FILTERED = /^([A-Za-z$][\w$-]*)\[(.+)\](\.[A-Za-z$][\w$-]*)?$/;
/** Sub-attributes whose strings compare exactly (caseExact in /Schemas): a group member's id and reference. */
const CASE_EXACT = new Set(["members.value", "members.$ref"]);

/**
 * The operation with its value filter's strings spelled as the resource holds them. A filter compares
 * in any case unless the attribute is caseExact (RFC 7644 §3.4.2.2), and scim-patch compares exactly:
 * `emails[type eq "Work"]` missed the stored "work", and a replace added a second e-mail. What the
 * resource holds is kept as sent, so each compared string becomes the spellings stored that equal it
 * in any case (several: any of them); one that matches none is left, so an add still creates it.
 */
function withStoredSpellings(resource: Json, op: ScimPatchOperation): ScimPatchOperation {
  const match = op.path === undefined ? null : FILTERED.exec(op.path);
  if (!match) return op;
  const [, attribute, sent, sub] = match as unknown as [string, string, string, string | undefined];
  const entries = resource[attribute];
  if (!Array.isArray(entries)) return op;
  let filter: Filter;
  try {
    filter = parseScimFilter(sent);
  } catch {
    return op;
  }
  const text = stringifyScimFilter(spelledAsStored(filter, attribute, entries));
  if (text === stringifyScimFilter(filter)) return op;
  const path = `${attribute}[${text}]${sub ?? ""}`;
  // The stored spellings came from earlier requests: the path made of them is checked as a sent one is. And one
  // with a backslash is left as sent: the filter library reads back a backslash it wrote as two.
  return text.includes("\\") || reachesPrototype(path) ? op : { ...op, path };
}

function spelledAsStored(filter: Filter, attribute: string, entries: unknown[]): Filter {
  switch (filter.op) {
    case "and":
    case "or":
      return { ...filter, filters: filter.filters.map((f) => spelledAsStored(f, attribute, entries)) };
    case "not":
      return { ...filter, filter: spelledAsStored(filter.filter, attribute, entries) };
    case "eq":
    case "ne": {
      const { compValue, attrPath } = filter;
      if (typeof compValue !== "string" || CASE_EXACT.has(`${attribute}.${attrPath}`.toLowerCase())) return filter;
      const stored = entries.map((entry) => (isObject(entry) ? Object.entries(entry).find(([key]) => key.toLowerCase() === attrPath.toLowerCase())?.[1] : undefined));
      // A boolean is stored as one (`primary`), and Entra ID compares it as a string: `roles[primary eq "True"]`.
      const spellings = [
        ...new Set(stored.filter((v): v is string | boolean => (typeof v === "string" || typeof v === "boolean") && String(v).toLowerCase() === compValue.toLowerCase())),
      ];
      if (spellings.length === 0) return filter;
      const each = spellings.map((spelling): Filter => ({ ...filter, compValue: spelling }));
      if (each.length === 1) return each[0]!;
      // Equal to any of them; unequal to all.
      return { op: filter.op === "eq" ? "or" : "and", filters: each };
    }
    default:
      return filter;
  }
}

function patched<T extends object>(resource: T, ops: ScimPatchOperation[]): T {
  try {
    // Any options drop the library's default treatMissingAsAdd: a replace of a missing attribute is an add (RFC 7644 §3.5.2.3).
    return scimPatch(resource as never, ops, { mutateDocument: true, treatMissingAsAdd: true }) as T;
  } catch (error) {
    // scim-patch's scimCode is noTarget or invalidSyntax; paths were checked before, so the rest is the value's fault.
    const e = error as { scimCode?: string; message?: string };
    throw new ScimError(400, `the patch cannot be applied: ${String(e.message ?? error).slice(0, 200)}`, e.scimCode === "noTarget" ? "noTarget" : "invalidValue");
  }
}

/** A change to a group's set of member ids: add or remove these, make it these, or empty it. */
export type MemberChange = { op: "add" | "remove" | "replace"; ids: string[] } | { op: "clear" };

/** `members[value eq "id"]`, the path a member's removal comes as (Okta's, and Entra ID's made so above). */
const MEMBER_BY_VALUE = /^members\[(.+)\]$/;

/**
 * A Group PATCH's operations on its members as changes to the set of their ids, applied in order by
 * `withMemberChanges`, and the other operations (name, external id) for scim-patch; null when one names
 * members some other way (a filter on `display`, a sub-attribute's path), which only scim-patch applies.
 * scim-patch finds each value among the members one by one: removing a thousand members of a group of
 * fifty thousand took a minute, with the group held.
 */
export function groupMemberChanges(ops: ScimPatchOperation[]): { members: MemberChange[]; rest: ScimPatchOperation[] } | null {
  const members: MemberChange[] = [];
  const rest: ScimPatchOperation[] = [];
  for (const op of ops) {
    const value: unknown = "value" in op ? op.value : undefined;
    const name = op.op.toLowerCase() as "add" | "remove" | "replace";
    if (op.path === undefined) {
      if (!isObject(value) || !("members" in value)) {
        rest.push(op);
        continue;
      }
      const { members: list, ...others } = value;
      if (name === "remove") return null;
      members.push({ op: name, ids: memberIds(list) });
      if (Object.keys(others).length > 0) rest.push({ ...op, value: others } as ScimPatchOperation);
      continue;
    }
    if (op.path === "members") {
      if (name === "remove") {
        // No value, or null (unassigned, RFC 7643 §2.5): every member goes.
        if (value !== undefined && value !== null) return null;
        members.push({ op: "clear" });
      } else members.push({ op: name, ids: memberIds(value) });
      continue;
    }
    const filtered = MEMBER_BY_VALUE.exec(op.path);
    if (filtered && name === "remove" && value === undefined) {
      let filter: Filter;
      try {
        filter = parseScimFilter(filtered[1]!);
      } catch {
        return null;
      }
      if (filter.op !== "eq" || filter.attrPath.toLowerCase() !== "value" || typeof filter.compValue !== "string") return null;
      members.push({ op: "remove", ids: [filter.compValue] });
      continue;
    }
    if (/^members\b/i.test(op.path)) return null;
    rest.push(op);
  }
  return { members, rest };
}

/** The ids a members value names: a list of `{ value: "id" }` (or one of them), as parseGroup reads a group's. */
function memberIds(value: unknown): string[] {
  if (value === null) return [];
  return (Array.isArray(value) ? value : [value]).map((m: unknown, i) => {
    if (!isObject(m) || typeof m.value !== "string") throw new ScimError(400, `members[${i}].value must be a string`, "invalidValue");
    return m.value;
  });
}

/** A change of members by their ids alone (no clear, no replace): only the members it names are read and changed. */
export type MemberEdit = { op: "add" | "remove"; ids: string[] };

/** Whether the changes add and remove members by id only: their effect on each id named follows from that id's membership alone. */
export const byIdsOnly = (changes: MemberChange[]): changes is MemberEdit[] => changes.every((change) => change.op === "add" || change.op === "remove");

/** The members after the changes, in the order they were first added. */
export function withMemberChanges(current: string[], changes: MemberChange[]): string[] {
  let set = new Set(current);
  for (const change of changes) {
    if (change.op === "clear") set.clear();
    else if (change.op === "replace") set = new Set(change.ids);
    else if (change.op === "add") for (const id of change.ids) set.add(id);
    else for (const id of change.ids) set.delete(id);
  }
  return [...set];
}
