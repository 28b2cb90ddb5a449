import "server-only";
import { env } from "@/lib/env";

/** Where S3 clients reach the organization's object storage (shown with every new S3 key and in its .env). */
export function objectStorageConnection(): { endpoint: string; region: string } {
  const e = env();
  return { endpoint: e.STRATUS_S3_ENDPOINT, region: e.STRATUS_S3_REGION };
}

/** The container registry's host, for the `docker login` line shown with a new registry token. */
export function registryHost(): string {
  return env().STRATUS_REGISTRY_HOST;
}
