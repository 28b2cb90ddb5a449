import { z } from "zod";
import { aliasSchema } from "./common";
import { futureTimestampSchema } from "./time";

export const s3OrgPathSchema = z.object({ org_id: z.string() });
export const s3KeyPathSchema = z.object({ org_id: z.string(), access_key_id: z.string() });

export const s3KeySchema = z
  .object({
    key_uuid: z.string(),
    user_id: z.string(),
    access_key_id: z.string().meta({ example: "S3U_ab4a6b00aa5f408ea9fbac6de5eb45ab" }),
    /** An expired key is disabled. */
    status: z.enum(["enabled", "disabled"]),
    created_at: z.string(),
    alias: z.string().optional(),
    expire_at: z.string().optional(),
  })
  .meta({ id: "S3Key" });

export const listS3KeysResponseSchema = z.object({ items: z.array(s3KeySchema) }).meta({ id: "ListS3KeysResponse" });

export const createS3KeyRequestSchema = z
  .object({
    alias: aliasSchema.optional(),
    expire_at: futureTimestampSchema.optional(),
  })
  .meta({ id: "CreateS3KeyRequest" });

export const createS3KeyResponseSchema = z
  .object({
    access_key_id: z.string(),
    /** Shown only here, once; the store keeps a hash. */
    secret_key: z.string(),
    expire_at: z.string().optional(),
  })
  .meta({ id: "CreateS3KeyResponse" });

export type S3Key = z.infer<typeof s3KeySchema>;
export type CreateS3KeyRequest = z.infer<typeof createS3KeyRequestSchema>;
