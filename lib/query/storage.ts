import type { z } from "zod";
import type { listS3KeysResponseSchema } from "@/lib/contract/s3";
import { gatewayQuery } from "./gateway-query";
import { storageKeys } from "./keys";
import { operationPath } from "@/lib/contract/operations";

export type ListS3KeysResponse = z.infer<typeof listS3KeysResponseSchema>;

export const storagePaths = {
  s3Keys: (orgId: string) => operationPath("listS3Keys", { org_id: orgId }),
  s3Key: (orgId: string, accessKeyId: string) => operationPath("deleteS3Key", { org_id: orgId, access_key_id: accessKeyId }),
};

export const storageQueries = {
  /** GET /v1/organizations/{org_id}/storage/s3/keys: every key of the organization, the caller's and others'. */
  s3Keys: (orgId: string) => gatewayQuery<ListS3KeysResponse, ReturnType<typeof storageKeys.s3Keys>>(storageKeys.s3Keys(orgId), storagePaths.s3Keys(orgId)),
};
