import { createRoute } from "@hono/zod-openapi";
import { createS3KeyRequestSchema, createS3KeyResponseSchema, listS3KeysResponseSchema, s3KeyPathSchema, s3OrgPathSchema } from "@/lib/contract/s3";
import { errors, json, jsonBody, operation } from "../shared";

const tags = ["S3Keys"];

export const listS3Keys = createRoute({
  ...operation("listS3Keys"),
  tags,
  summary: "Lists all S3 access keys in the organization and returns their details.",
  request: { params: s3OrgPathSchema },
  responses: { 200: json(listS3KeysResponseSchema, "the organization's S3 access keys"), ...errors(400, 401, 403, 500) },
});

export const createS3Key = createRoute({
  ...operation("createS3Key"),
  tags,
  summary: "Creates an S3 access key in the organization and returns the access key ID and one-time secret key.",
  request: { params: s3OrgPathSchema, body: jsonBody(createS3KeyRequestSchema) },
  responses: { 200: json(createS3KeyResponseSchema, "the access key ID and one-time secret key"), ...errors(400, 401, 403, 500) },
});

export const deleteS3Key = createRoute({
  ...operation("deleteS3Key"),
  tags,
  summary: "Deletes an S3 access key from the organization.",
  description: "Members may delete their own keys; deleting another user's key needs the s3.manage permission.",
  request: { params: s3KeyPathSchema },
  responses: { 204: { description: "empty response" }, ...errors(400, 401, 403, 404, 500) },
});
