import { z } from "zod";

export const orgQuotaSchema = z
  .object({
    available: z.number().int(),
    description: z.string(),
    max: z.number().int(),
    programmatic_name: z.string(),
    type: z.string().meta({ example: "ORG_QUOTAS_MAXIMUM_VMS" }),
    used: z.number().int(),
  })
  .meta({ id: "OrgQuota" });

export const listOrgQuotasResponseSchema = z.object({ quotas: z.array(orgQuotaSchema) }).meta({ id: "ListOrgQuotasResponse" });

export type OrgQuota = z.infer<typeof orgQuotaSchema>;
