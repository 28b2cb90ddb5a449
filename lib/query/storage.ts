import type { z } from "zod";
import type { listS3KeysResponseSchema } from "@/lib/contract/s3";
import { gatewayQuery, segment } from "./gateway-query";
import { storageKeys } from "./keys";

export type ListS3KeysResponse = z.infer<typeof listS3KeysResponseSchema>;

export const storagePaths = {
  s3Keys: (orgId: string) => `/v1/organizations/${segment(orgId)}/storage/s3/keys`,
  s3Key: (orgId: string, accessKeyId: string) => `/v1/organizations/${segment(orgId)}/storage/s3/keys/${segment(accessKeyId)}`,
};

export const storageQueries = {
  /** GET /v1/organizations/{org_id}/storage/s3/keys: every key of the organization, the caller's and others'. */
  s3Keys: (orgId: string) => gatewayQuery<ListS3KeysResponse, ReturnType<typeof storageKeys.s3Keys>>(storageKeys.s3Keys(orgId), storagePaths.s3Keys(orgId)),
};
