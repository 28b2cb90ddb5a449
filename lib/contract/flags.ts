import { z } from "zod";

export const featureFlagsQuerySchema = z.object({
  project_id: z.guid({ message: "must be a project id (UUID)" }).optional(),
});

export const featureFlagsResponseSchema = z
  .object({
    feature_flags: z.record(z.string(), z.unknown()).meta({ example: { reservations: true, max_vms_per_request: 32 } }),
  })
  .meta({ id: "customerListFeatureFlagsResponse" });
