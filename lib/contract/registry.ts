import { z } from "zod";
import { aliasSchema } from "./common";
import { futureTimestampSchema } from "./time";

export const listSupportedLocationsResponseSchema = z
  .object({ items: z.array(z.string()).meta({ example: ["us-east1", "us-northcentral1"] }) })
  .meta({ id: "ListSupportedLocationsResponse" });

export const listSupportedProvidersResponseSchema = z
  .object({ items: z.array(z.string()).meta({ example: ["docker-hub", "ghcr"] }) })
  .meta({ id: "ListSupportedProvidersResponse" });

export const ccrTokenRequestSchema = z
  .object({
    alias: aliasSchema.optional(),
    expires_at: futureTimestampSchema.optional(),
  })
  .meta({ id: "CCRTokenRequest" });

export const ccrTokenResponseSchema = z
  .object({ token: z.string().meta({ description: "Shown only here, once; the store keeps a hash." }) })
  .meta({ id: "CCRTokenResponse" });

export type CcrTokenRequest = z.infer<typeof ccrTokenRequestSchema>;
