import { parse as parseScimFilter } from "scim2-parse-filter";
import { unstorable } from "../../router";
import type { PersonRow, GroupRow } from "../../store/queries/scim-service";

/** SCIM 2.0 (RFC 7643 / 7644) resources as this service reads and writes them. */

export const SCIM_MEDIA_TYPE = "application/scim+json";
export const CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
export const CORE_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";
export const MAX_RESULTS = 200;

export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers" | "sensitive";

/** A SCIM error answer (RFC 7644 §3.12). */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = "ScimError";
  }
}

export const scimErrorBody = (status: number, detail: string, scimType?: string) => ({
  schemas: [ERROR],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type ResourceKind = "User" | "Group";

/** Attribute names as a schema spells them, lower-cased to look them up, each with its sub-attributes'. */
type Spelling = Map<string, { name: string; sub: Spelling }>;

function spelling(attributes: Record<string, string[] | Spelling>): Spelling {
  return new Map(
    Object.entries(attributes).map(([name, sub]) => [name.toLowerCase(), { name, sub: Array.isArray(sub) ? spelling(Object.fromEntries(sub.map((s) => [s, []]))) : sub }]),
  );
}

const MULTI_VALUED = ["value", "display", "type", "primary"];
const REFERENCES = ["value", "$ref", "display", "type"];

/**
 * Names are case-insensitive (RFC 7643 §2.1), and a resource is kept with them spelled as here, so
 * that what reads it (this file, scim-patch, the store's filters) finds them however a client wrote
 * them: the core User attributes of RFC 7643 §4.1 (those not read here are kept as sent), the
 * enterprise extension's under its URN, and Group's. id, meta and schemas are the service's own.
 */
const SPELLINGS: Record<ResourceKind, Spelling> = {
  User: spelling({
    userName: [],
    name: ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"],
    displayName: [],
    nickName: [],
    profileUrl: [],
    title: [],
    userType: [],
    preferredLanguage: [],
    locale: [],
    timezone: [],
    active: [],
    password: [],
    emails: MULTI_VALUED,
    phoneNumbers: MULTI_VALUED,
    ims: MULTI_VALUED,
    photos: MULTI_VALUED,
    addresses: ["formatted", "streetAddress", "locality", "region", "postalCode", "country", "type", "primary"],
    groups: REFERENCES,
    entitlements: MULTI_VALUED,
    roles: MULTI_VALUED,
    x509Certificates: MULTI_VALUED,
    externalId: [],
    [ENTERPRISE_USER]: spelling({
      employeeNumber: [],
      costCenter: [],
      organization: [],
      division: [],
      department: [],
      manager: ["value", "$ref", "displayName"],
    }),
  }),
  Group: spelling({ displayName: [], members: REFERENCES, externalId: [] }),
};
export const CORE_SCHEMA: Record<ResourceKind, string> = { User: CORE_USER, Group: CORE_GROUP };

/** A value with its attributes' names (each entry's, in a list) spelled as the schema does; other names as sent. */
export function spelled(value: unknown, names: Spelling): unknown {
  if (Array.isArray(value)) return value.map((v) => spelled(v, names));
  if (!isObject(value) || names.size === 0) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => {
      const attribute = names.get(key.toLowerCase());
      return attribute ? [attribute.name, spelled(v, attribute.sub)] : [key, v];
    }),
  );
}

/**
 * A User or Group resource with its attributes' names spelled as the schemas do. A core attribute sent by its
 * fully qualified name (RFC 7644 §3.10: `urn:…:core:2.0:User:password`), or inside an object under the core
 * schema's URN, is read as the bare attribute: every rule about it then holds however it is named (`password`,
 * write-only, RFC 7643 §4.1.1, is never kept).
 */
export const spelledResource = (kind: ResourceKind, resource: Json): Json => spelled(withBareCoreNames(kind, resource), SPELLINGS[kind]) as Json;

function withBareCoreNames(kind: ResourceKind, resource: Json): Json {
  const core = CORE_SCHEMA[kind].toLowerCase();
  if (!Object.keys(resource).some((key) => key.toLowerCase().startsWith(core))) return resource;
  const bare: Json = {};
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (lower === core) {
      if (!isObject(value)) throw invalidValue(`${key} must be an object of the schema's attributes`);
      Object.assign(bare, value);
    } else if (lower.startsWith(`${core}:`)) {
      bare[key.slice(core.length + 1)] = value;
    } else {
      bare[key] = value;
    }
  }
  return bare;
}

/** Whether a stored attribute's name is one of the core schema's, fully qualified: none is kept since migration 0027. */
const isQualifiedCore = (key: string): boolean => key.toLowerCase().startsWith(CORE_USER.toLowerCase());

const ATTRIBUTE_NAME = "[A-Za-z$][\\w$-]*";
/** RFC 7644 §3.5.2's PATH: an attribute (after its schema's URN), a value filter in brackets, a sub-attribute. */
const PATH = new RegExp(`^(?:(urn:[^\\[\\]]+):)?(${ATTRIBUTE_NAME})(?:\\[(.+)\\])?(?:\\.(${ATTRIBUTE_NAME}))?$`, "i");

/**
 * A PATCH path (or a key of a value without one) with its names spelled as the schemas do, the
 * resource's own schema URN left out (scim-patch reads the rest), and the spelling of the value it
 * takes; undefined when it is no attribute path or its filter does not parse.
 */
export function spelledPath(kind: ResourceKind, path: string): { path: string; names: Spelling } | undefined {
  const whole = SPELLINGS[kind].get(path.trim().toLowerCase());
  if (whole) return { path: whole.name, names: whole.sub };
  const match = PATH.exec(path.trim());
  if (!match) return undefined;
  const [, urn, , filter, sub] = match;
  const name = match[2]!;
  if (filter !== undefined) {
    try {
      parseScimFilter(filter);
    } catch {
      return undefined;
    }
  }
  let names = SPELLINGS[kind];
  let prefix = "";
  if (urn !== undefined && urn.toLowerCase() !== CORE_SCHEMA[kind].toLowerCase()) {
    const extension = names.get(urn.toLowerCase());
    // An extension this service does not know is kept as sent.
    if (!extension) return { path: path.trim(), names: new Map() };
    prefix = `${extension.name}:`;
    names = extension.sub;
  }
  const attribute = names.get(name.toLowerCase());
  const subAttribute = sub === undefined ? undefined : attribute?.sub.get(sub.toLowerCase());
  return {
    path: `${prefix}${attribute?.name ?? name}${filter !== undefined ? `[${filter}]` : ""}${sub !== undefined ? `.${subAttribute?.name ?? sub}` : ""}`,
    names: (sub !== undefined ? subAttribute?.sub : attribute?.sub) ?? new Map(),
  };
}

/** Attributes the service keeps itself (never taken from the stored rest of the resource). */
const OWN_ATTRIBUTES = new Set(["id", "meta", "schemas", "username", "externalid", "active", "password", "groups"]);

/**
 * The resource's name and displayName. For a person the identity provider has provisioned, what it
 * sent, and nothing once it removed them (RFC 7644 §3.5.2.2: unassigned). A person it has not (invited,
 * or signed in with SSO, before it links them) is shown with the account's name, so that it can tell them apart.
 */
function namesOf(row: PersonRow): { name?: Json; displayName?: string } {
  const attrs = row.scimAttributes;
  if (attrs) {
    return {
      ...(isObject(attrs.name) ? { name: attrs.name } : {}),
      ...(typeof attrs.displayName === "string" ? { displayName: attrs.displayName } : {}),
    };
  }
  return row.accountName ? { name: { formatted: row.accountName }, displayName: row.accountName } : {};
}

/** A URN as RFC 8141 spells one (its namespace id, then its specific string). */
const URN = /^urn:[a-z0-9][a-z0-9-]{0,31}:[\w()+,\-.:=@;$!*'%/]+$/i;

/**
 * The URIs of the schemas of a User's attributes (RFC 7643 §3): the core one, then each extension
 * present, once whatever its case. Extensions this service does not know are kept as sent, and named too.
 */
function schemasOf(attrs: Json): string[] {
  const seen = new Set([CORE_USER.toLowerCase()]);
  const schemas = [CORE_USER];
  for (const key of Object.keys(attrs)) {
    if (!URN.test(key) || !isObject(attrs[key]) || seen.has(key.toLowerCase())) continue;
    seen.add(key.toLowerCase());
    schemas.push(key);
  }
  return schemas;
}

export function userResource(row: PersonRow, base: string): Json {
  const attrs = row.scimAttributes ?? {};
  const rest: Json = {};
  for (const [key, value] of Object.entries(attrs)) if (!OWN_ATTRIBUTES.has(key.toLowerCase()) && key !== "name" && !isQualifiedCore(key)) rest[key] = value;
  const { name, displayName } = namesOf(row);
  return {
    schemas: schemasOf(attrs),
    id: row.userId,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.scimUserName ?? row.email,
    ...(name ? { name } : {}),
    ...rest,
    ...(displayName ? { displayName } : {}),
    emails: Array.isArray(attrs.emails) && attrs.emails.length > 0 ? attrs.emails : [{ value: row.email, type: "work", primary: true }],
    active: row.status === "active",
    meta: {
      resourceType: "User",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Users/${row.userId}`,
    },
  };
}

export function groupResource(row: GroupRow, members: Array<{ value: string; display?: string }> | null, base: string): Json {
  return {
    schemas: [CORE_GROUP],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    ...(members ? { members: members.map((m) => ({ value: m.value, ...(m.display ? { display: m.display } : {}), $ref: `${base}/Users/${m.value}`, type: "User" })) } : {}),
    meta: {
      resourceType: "Group",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Groups/${row.id}`,
    },
  };
}

/** A boolean as sent: true/false, or Entra ID's "True"/"False". */
export function scimBoolean(value: unknown, field: string): boolean {
  if (!readsAsBoolean(value)) throw invalidValue(`${field} must be a boolean`);
  return typeof value === "boolean" ? value : value.toLowerCase() === "true";
}

/** A boolean, or one written as a string in any case ("True", Entra ID's): what scimBoolean reads. */
function readsAsBoolean(value: unknown): value is boolean | string {
  return typeof value === "boolean" || (typeof value === "string" && /^(true|false)$/i.test(value));
}

/** The longest userName, externalId or group displayName: each is indexed, and a longer one fits no index row. */
const MAX_NAME = 256;

function optionalString(body: Json, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw invalidValue(`${field} must be a string`);
  if (value.length > MAX_NAME) throw invalidValue(`${field} is longer than ${MAX_NAME} characters`);
  return value;
}

/** A resource as sent, refused when the store could not keep it as it is (see unstorable). */
function storableResource(sent: unknown): Json {
  if (!isObject(sent)) throw new ScimError(400, "the body must be a JSON object", "invalidSyntax");
  const found = unstorable(sent, "");
  if (found) throw invalidValue(`${found.at}: ${found.why}`);
  return sent;
}

export interface UserInput {
  userName: string;
  externalId: string | null;
  active: boolean;
  email: string;
  accountName: string;
  /** The rest of the resource, stored as sent (name, displayName, emails, extensions…). */
  attributes: Json;
}

/**
 * What a PUT or a PATCH makes of a person. `active` is undefined when the change does not say (a PUT that
 * leaves it out, a PATCH that removes it or sets it null): the person's status stays as it is. A missing
 * value is "not asserted" (RFC 7644 §3.5.1), and a suspended person must not come back for it.
 */
export type UserChange = Omit<UserInput, "email" | "active"> & { active: boolean | undefined };

/** A User resource from a POST or PUT body, or from the result of a PATCH. */
/** The largest User resource kept, as JSON: an identity provider's are a few kilobytes; a PATCH cannot grow one past it. */
export const MAX_USER_BYTES = 64 * 1024;

export function parseUser(sent: unknown): UserInput {
  const { email, active, ...rest } = parseUserFields(sent, "create");
  if (!email) throw invalidValue("emails: a person needs an e-mail (a primary emails value, or a userName that is one)");
  if (!EMAIL.test(email) || email.length > 320) throw invalidValue(`emails: ${email.slice(0, 64)} is not an e-mail address`);
  // A person created without `active` is active: there is no status yet for a missing value to keep.
  return { ...rest, active: active ?? true, email: email.toLowerCase() };
}

/**
 * A User resource from a PUT body, or from the result of a PATCH: what an identity provider changes of a
 * person it provisioned. The account's e-mail is not among it (the account answers to the address it was
 * made with), so the e-mails are attributes like any other: an entry whose value is unassigned (null, or
 * removed: Entra ID's `emails[type eq "work"].value` set to null) goes, and a value need not be an address.
 */
export function parseUserChange(sent: unknown): UserChange {
  const { email, ...rest } = parseUserFields(sent, "change");
  return rest;
}

function parseUserFields(sent: unknown, purpose: "create" | "change"): UserChange & { email: string | undefined } {
  const body = spelledResource("User", storableResource(sent));
  if (Buffer.byteLength(JSON.stringify(body)) > MAX_USER_BYTES) throw invalidValue(`the User resource is larger than ${MAX_USER_BYTES} bytes`);
  const userName = body.userName;
  if (typeof userName !== "string" || userName.trim() === "") throw invalidValue("userName is required and must be a non-empty string");
  if (userName.length > MAX_NAME) throw invalidValue(`userName is longer than ${MAX_NAME} characters`);
  const externalId = optionalString(body, "externalId");
  // Missing or null (unassigned, RFC 7643 §2.5): undefined, which each caller reads as its default.
  const active = body.active === undefined || body.active === null ? undefined : scimBoolean(body.active, "active");
  const attributes: Json = {};
  for (const [key, value] of Object.entries(body)) {
    if (OWN_ATTRIBUTES.has(key.toLowerCase()) || value === null || value === undefined) continue;
    attributes[key] = value;
  }
  if (attributes.name !== undefined && !isObject(attributes.name)) throw invalidValue("name must be an object");
  const name = (attributes.name ?? {}) as Json;
  for (const part of ["givenName", "familyName", "formatted", "middleName", "honorificPrefix", "honorificSuffix"]) {
    if (name[part] !== undefined && name[part] !== null && typeof name[part] !== "string") throw invalidValue(`name.${part} must be a string`);
  }
  if (attributes.displayName !== undefined && typeof attributes.displayName !== "string") throw invalidValue("displayName must be a string");
  primariesAsBooleans(attributes);
  let email: string | undefined;
  if (attributes.emails !== undefined) {
    if (!Array.isArray(attributes.emails)) throw invalidValue("emails must be an array");
    if (purpose === "change") attributes.emails = attributes.emails.filter((e: unknown) => !isObject(e) || (e.value !== null && e.value !== undefined));
    const emails = attributes.emails as unknown[];
    emails.forEach((e, i) => {
      if (!isObject(e) || typeof e.value !== "string") throw invalidValue(`emails[${i}].value must be a string`);
      // Every value is indexed for `emails.value eq` lookups, and no address is longer.
      if (e.value.length > 320) throw invalidValue(`emails[${i}].value is longer than 320 characters`);
    });
    const list = emails as Array<{ value: string; primary?: boolean }>;
    email = (list.find((e) => e.primary) ?? list[0])?.value;
    if (list.length === 0) delete attributes.emails;
  }
  if (!email && EMAIL.test(userName)) email = userName;
  const enterprise = attributes[ENTERPRISE_USER];
  if (enterprise !== undefined && !isObject(enterprise)) throw invalidValue(`${ENTERPRISE_USER} must be an object`);
  if (enterprise && enterprise.manager !== undefined) {
    const manager = managerOf(enterprise.manager);
    if (manager === undefined) delete enterprise.manager;
    else enterprise.manager = manager;
  }
  const accountName =
    (typeof attributes.displayName === "string" && attributes.displayName.trim()) ||
    (typeof name.formatted === "string" && name.formatted.trim()) ||
    [name.givenName, name.familyName].filter((p) => typeof p === "string" && p.trim()).join(" ");
  return { userName, externalId, active, email, accountName: accountName.slice(0, 256), attributes };
}

/** The multi-valued attributes of a User whose entries may say which is primary (RFC 7643 §4.1.2). */
export const WITH_PRIMARY = ["emails", "phoneNumbers", "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates"];

/**
 * Each entry's `primary` kept as the boolean /Schemas declares, whichever attribute it is in: Entra ID
 * sends "True" and "False" (without its compatibility flag), and a string kept as sent was answered
 * back as one. A null primary is unassigned (RFC 7643 §2.5), and goes.
 */
function primariesAsBooleans(attributes: Json): void {
  for (const attribute of WITH_PRIMARY) {
    const entries = attributes[attribute];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry: unknown, i) => {
      if (!isObject(entry) || entry.primary === undefined) return;
      if (entry.primary === null) delete entry.primary;
      else entry.primary = scimBoolean(entry.primary, `${attribute}[${i}].primary`);
    });
  }
}

/**
 * The person as stored, for a PATCH to apply to: an entry's `primary` stored before every one was kept
 * as a boolean, and neither a boolean nor "true" or "false", goes. Otherwise parseUser would refuse the
 * result of every PATCH of that person, a deprovisioning one included, for what the request never sent.
 */
export function withReadablePrimaries(resource: Json): Json {
  for (const attribute of WITH_PRIMARY) {
    const entries = resource[attribute];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      if (!isObject(entry) || entry.primary === undefined || entry.primary === null) continue;
      if (!readsAsBoolean(entry.primary)) delete entry.primary;
    }
  }
  return resource;
}

/**
 * The enterprise extension's manager as kept: a complex attribute (RFC 7643 §4.3), which Entra ID sends
 * as the manager's id alone and clears with an empty value. `{ value: id }` for an id; undefined for
 * none (an empty or null value, or `{ value: "" }`); anything else as sent.
 */
export function managerOf(value: unknown): unknown {
  if (value === null || value === "") return undefined;
  if (typeof value === "string") return { value };
  if (isObject(value) && (value.value === "" || value.value === null)) return undefined;
  return value;
}

export interface GroupInput {
  displayName: string;
  externalId: string | null;
  /** The members' ids; null when the body leaves members out (a PUT keeps the group's members then). */
  members: string[] | null;
}

export function parseGroup(sent: unknown): GroupInput {
  const body = spelledResource("Group", storableResource(sent));
  const displayName = body.displayName;
  if (typeof displayName !== "string" || displayName.trim() === "") throw invalidValue("displayName is required and must be a non-empty string");
  if (displayName.length > MAX_NAME) throw invalidValue(`displayName is longer than ${MAX_NAME} characters`);
  const externalId = optionalString(body, "externalId");
  // Null is unassigned (RFC 7643 §2.5), as a client clears a multi-valued attribute (RFC 7644 §3.5.1): no members.
  let members: string[] | null = body.members === null ? [] : null;
  if (body.members !== undefined && body.members !== null) {
    if (!Array.isArray(body.members)) throw invalidValue("members must be an array");
    members = (body.members as unknown[]).map((m, i) => {
      if (!isObject(m) || typeof m.value !== "string") throw invalidValue(`members[${i}].value must be a string`);
      return m.value;
    });
    members = [...new Set(members)];
  }
  return { displayName, externalId, members };
}
