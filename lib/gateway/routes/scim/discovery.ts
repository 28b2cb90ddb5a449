import { CORE_GROUP, CORE_USER, ENTERPRISE_USER, MAX_RESULTS, type Json } from "./resources";

/** The service's discovery endpoints (RFC 7644 §4): its configuration, resource types and schemas. */

export function serviceProviderConfig(base: string): Json {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    documentationUri: `${base}/Schemas`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "Authentication with a token of the organization's SCIM integration, as Authorization: Bearer <token>",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string): Json[] {
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "A person of the organization",
      schema: CORE_USER,
      schemaExtensions: [{ schema: ENTERPRISE_USER, required: false }],
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "A group of the organization's people; group mappings turn its members' membership into role bindings",
      schema: CORE_GROUP,
      meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/Group` },
    },
  ];
}

const attr = (name: string, extra: Json = {}): Json => ({
  name,
  type: "string",
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

/** A multi-valued attribute of RFC 7643 §2.4's usual sub-attributes (value, display, type, primary). */
const multiValued = (name: string, types: string[], extra: Json = {}): Json =>
  attr(name, {
    type: "complex",
    multiValued: true,
    subAttributes: [attr("value"), attr("display"), attr("type", types.length > 0 ? { canonicalValues: types } : {}), attr("primary", { type: "boolean" })],
    ...extra,
  });

export function schemas(base: string): Json[] {
  const meta = (id: string) => ({ resourceType: "Schema", location: `${base}/Schemas/${id}` });
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: CORE_USER,
      name: "User",
      description: "User account",
      attributes: [
        attr("userName", { required: true, uniqueness: "server", description: "Kept as sent; unique in the organization, compared case-insensitively" }),
        attr("name", {
          type: "complex",
          subAttributes: [attr("formatted"), attr("familyName"), attr("givenName"), attr("middleName"), attr("honorificPrefix"), attr("honorificSuffix")],
        }),
        attr("displayName"),
        attr("nickName"),
        attr("profileUrl", { type: "reference", referenceTypes: ["external"] }),
        attr("title"),
        attr("userType"),
        attr("preferredLanguage"),
        attr("locale"),
        attr("timezone"),
        attr("active", { type: "boolean", description: "false suspends the person in the organization" }),
        multiValued("emails", ["work", "home", "other"], { description: "The primary entry is the person's e-mail" }),
        multiValued("phoneNumbers", ["work", "home", "mobile", "fax", "pager", "other"]),
        multiValued("ims", ["aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"]),
        multiValued("photos", ["photo", "thumbnail"]),
        attr("addresses", {
          type: "complex",
          multiValued: true,
          subAttributes: [
            ...["formatted", "streetAddress", "locality", "region", "postalCode", "country"].map((name) => attr(name)),
            attr("type", { canonicalValues: ["work", "home", "other"] }),
            attr("primary", { type: "boolean" }),
          ],
        }),
        attr("groups", {
          type: "complex",
          multiValued: true,
          mutability: "readOnly",
          description: "The groups the person is a direct member of (changed through the groups)",
          subAttributes: [attr("value", { mutability: "readOnly" }), attr("$ref", { type: "reference", mutability: "readOnly" }), attr("display", { mutability: "readOnly" }), attr("type", { mutability: "readOnly" })],
        }),
        multiValued("entitlements", []),
        multiValued("roles", []),
        multiValued("x509Certificates", [], { description: "Stored and returned as sent" }),
        attr("externalId", { caseExact: true }),
      ],
      meta: meta(CORE_USER),
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: ENTERPRISE_USER,
      name: "EnterpriseUser",
      description: "Enterprise user (stored and returned as sent)",
      attributes: [
        attr("employeeNumber"),
        attr("costCenter"),
        attr("organization"),
        attr("division"),
        attr("department"),
        attr("manager", { type: "complex", subAttributes: [attr("value"), attr("$ref", { type: "reference" }), attr("displayName", { mutability: "readOnly" })] }),
      ],
      meta: meta(ENTERPRISE_USER),
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: CORE_GROUP,
      name: "Group",
      description: "Group",
      attributes: [
        attr("displayName", { required: true, uniqueness: "server" }),
        attr("members", {
          type: "complex",
          multiValued: true,
          subAttributes: [attr("value", { mutability: "immutable", caseExact: true }), attr("display", { mutability: "readOnly" }), attr("$ref", { type: "reference", mutability: "immutable" })],
        }),
        attr("externalId", { caseExact: true }),
      ],
      meta: meta(CORE_GROUP),
    },
  ];
}
