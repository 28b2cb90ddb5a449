import { z } from "zod";
import { idSchema, bodyArray, queryArray, requiredString } from "./common";
import { MFA_METHODS, PERMISSION_NAMES, PERSON_SOURCES, PERSON_STATUSES } from "./constants";

export const PEOPLE_DEFAULT_LIMIT = 50;
export const PEOPLE_MAX_LIMIT = 500;
/** The most people one list may name by id. */
export const PEOPLE_BY_ID_MAX = 100;

export const orgPeoplePathSchema = z.object({ org_id: idSchema });
export const orgPersonPathSchema = z.object({ org_id: idSchema, user_id: idSchema });

export const listPeopleQuerySchema = z
  .object({
    status: z.enum(PERSON_STATUSES, { message: "must be active or suspended" }).optional(),
    q: z.string().trim().max(200, "must be at most 200 characters").optional(),
    /** Only these people (repeated, at most 100): names for the ids on a page, whatever the organization's size. */
    user_id: queryArray({ max: PEOPLE_BY_ID_MAX }),
    limit: z
      .string()
      .regex(/^\d{1,7}$/, `must be a whole number from 1 to ${PEOPLE_MAX_LIMIT}`)
      .transform(Number)
      .pipe(z.number().int().min(1, `must be a whole number from 1 to ${PEOPLE_MAX_LIMIT}`).max(PEOPLE_MAX_LIMIT, `must be at most ${PEOPLE_MAX_LIMIT}`))
      .optional()
      .meta({ type: "string", example: "50" } as never),
    next_token: z.string().max(1024, "is not a valid page token").optional(),
    prev_token: z.string().max(1024, "is not a valid page token").optional(),
  })
  .superRefine((v, ctx) => {
    if (v.next_token && v.prev_token) ctx.addIssue({ code: "custom", path: ["prev_token"], message: "must not be sent with next_token" });
  });

export const personSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    status: z.enum(PERSON_STATUSES),
    source: z.enum(PERSON_SOURCES),
    relation: z.enum(["owner", "member"]),
    /** When the person joined the organization. */
    created_at: z.string(),
    /** Their last authenticated call, RFC 3339; "" when never (or not shown to the caller). */
    last_active_at: z.string(),
    /** In the console, this person signs in only through the organization's SSO (never with an API key). */
    sso_required: z.boolean(),
    /** The second factors the person has enrolled for console sign-in (any organization's requirement counts them). */
    mfa_methods: z.array(z.enum(MFA_METHODS)),
  })
  .meta({ id: "OrganizationPerson" });

export const updatePersonRequestSchema = z
  .object({ sso_required: z.boolean({ message: "must be true or false" }) })
  .meta({ id: "UpdateOrganizationPersonRequest" });

export const listPeopleResponseSchema = z
  .object({ items: z.array(personSchema), next_page_token: z.string(), prev_page_token: z.string() })
  .meta({ id: "ListOrganizationPeopleResponse" });

export const invitePersonRequestSchema = z
  .object({
    email: requiredString()
      .trim()
      .max(254, "must be at most 254 characters")
      .pipe(z.email({ message: "must be an e-mail address" })),
    name: z
      .string({ message: "must be a string" })
      .trim()
      .max(255, "must be at most 255 characters")
      .regex(/^[^\p{Cc}\p{Cf}]*$/u, "must not contain control characters or invisible formatting characters")
      .optional(),
    role_ids: bodyArray(z.array(idSchema).max(50, "at most 50 roles")).optional(),
  })
  .meta({ id: "InviteOrganizationPersonRequest" });

export const callerPermissionsQuerySchema = z.object({ project_id: idSchema.optional() });

export const callerPermissionsSchema = z
  .object({
    organization_id: z.string(),
    /** The project the permissions were evaluated on; "" for the organization as a whole. */
    project_id: z.string(),
    relation: z.enum(["owner", "member"]),
    permissions: z.array(z.enum(PERMISSION_NAMES)),
    /** Without `project_id`: for each project the caller holds a binding on, the permissions held there (org-wide ones included). */
    projects: z.record(z.string(), z.array(z.enum(PERMISSION_NAMES))),
  })
  .meta({ id: "CallerPermissions" });

export type Person = z.infer<typeof personSchema>;
export type ListPeopleResponse = z.infer<typeof listPeopleResponseSchema>;
export type InvitePersonRequest = z.infer<typeof invitePersonRequestSchema>;
export type CallerPermissions = z.infer<typeof callerPermissionsSchema>;
