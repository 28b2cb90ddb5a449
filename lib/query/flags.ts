import type { z } from "zod";
import type { featureFlagsResponseSchema } from "@/lib/contract/flags";
import { gatewayQuery } from "./gateway-query";
import { flagKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

/** `feature_flags` maps every flag to its value for the user (booleans, numbers, strings). */
export type FeatureFlagsResponse = z.infer<typeof featureFlagsResponseSchema>;

export const flagQueries = {
  /** GET /v1/featureflags, evaluated with the project in the targeting context when given. */
  evaluated: (projectId?: string) =>
    gatewayQuery<FeatureFlagsResponse, ReturnType<typeof flagKeys.evaluated>>(flagKeys.evaluated(projectId), operationPath("getFeatureFlags"), { project_id: projectId }),
};
