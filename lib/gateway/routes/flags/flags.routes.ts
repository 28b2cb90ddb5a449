import { createRoute } from "@hono/zod-openapi";
import { featureFlagsQuerySchema, featureFlagsResponseSchema } from "@/lib/contract/flags";
import { defaultError, errors, json, operation } from "../shared";

export const getFeatureFlags = createRoute({
  ...operation("getFeatureFlags"),
  tags: ["Feature Flags"],
  summary: "Get feature flags for the currently logged in user.",
  description:
    "Evaluated for the caller and their first organization; with project_id, for the project's organization and the project " +
    "too, which requires membership of the project.",
  request: { query: featureFlagsQuerySchema },
  responses: { 200: json(featureFlagsResponseSchema, "Feature flags retrieved successfully"), ...errors(401, 500), ...defaultError },
});
