import { createRoute } from "@hono/zod-openapi";
import {
  callerPermissionsQuerySchema,
  callerPermissionsSchema,
  invitePersonRequestSchema,
  listPeopleQuerySchema,
  listPeopleResponseSchema,
  orgPeoplePathSchema,
  orgPersonPathSchema,
  personSchema,
  updatePersonRequestSchema,
} from "@/lib/contract/people";
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["People"];

export const listOrganizationPeople = createRoute({
  ...operation("listOrganizationPeople"),
  tags,
  summary: "List the organization's people. User must be part of the organization.",
  description:
    "By e-mail. `status` filters on active or suspended, `q` keeps people whose name or e-mail contains it (any case); " +
    "limit 1 to 500 (default 50); next_token and prev_token are the page tokens of a previous answer. " +
    "`last_active_at` is given to callers holding iam.read, else \"\".",
  request: { params: orgPeoplePathSchema, query: listPeopleQuerySchema },
  responses: { 200: json(listPeopleResponseSchema, "people"), ...errors(400, 401, 403, 500) },
});

export const inviteOrganizationPerson = createRoute({
  ...operation("inviteOrganizationPerson"),
  tags,
  summary: "Invite a person into the organization (needs iam.write).",
  description:
    "Creates the account if the e-mail is new, joins it to the organization with the baseline role (Organization Member) " +
    "and the given roles at organization scope, all at once. 409 when the e-mail is already a person of the organization.",
  request: { params: orgPeoplePathSchema, body: jsonBody(invitePersonRequestSchema) },
  responses: { 201: json(personSchema, "the invited person"), ...errors(400, 401, 403, 409, 500) },
});

export const removeOrganizationPerson = createRoute({
  ...operation("removeOrganizationPerson"),
  tags,
  summary: "Remove a person from the organization (needs iam.write; an owner only by an owner).",
  description: "Their role bindings in the organization go with them; the account stays. The last owner cannot be removed (400).",
  request: { params: orgPersonPathSchema },
  responses: { 204: { description: "Empty Response" }, ...errors(400, 401, 403, 404, 500) },
});

export const updateOrganizationPerson = createRoute({
  ...operation("updateOrganizationPerson"),
  tags,
  summary: "Change how a person of the organization may sign in (needs iam.write).",
  description: "`sso_required: true`: in the console the person signs in only through the organization's SSO provider, never with an API key.",
  request: { params: orgPersonPathSchema, body: jsonBody(updatePersonRequestSchema) },
  responses: { 200: json(personSchema, "the person"), ...errors(400, 401, 403, 404, 500) },
});

export const resetOrganizationPersonMfa = createRoute({
  ...operation("resetOrganizationPersonMfa"),
  tags,
  summary: "Reset a person's second factors (needs mfa.manage).",
  description:
    "Removes every second factor and recovery code the person enrolled for console sign-in, for instance after a lost phone or key. Where MFA is required, their next sign-in asks them to enrol again.",
  request: { params: orgPersonPathSchema },
  responses: { 200: json(personSchema, "the person, without second factors"), ...errors(400, 401, 403, 404, 500) },
});

export const getCallerPermissions = createRoute({
  ...operation("getCallerPermissions"),
  tags,
  summary: "The permissions the caller holds in the organization, or on one of its projects.",
  description: "With `project_id`, the permissions held on that project (organization-wide ones included); 404 for a project not of this organization.",
  request: { params: orgPeoplePathSchema, query: callerPermissionsQuerySchema },
  responses: { 200: json(callerPermissionsSchema, "the caller's permissions"), ...errors(400, 401, 403, 404, 500) },
});
