import { createApi } from "@/lib/gateway/app";
import { declaredOperations, findOperation, type DeclaredOperation } from "@/lib/gateway/router";

const VERSIONED = /^\/(v1|v1alpha5)(\/.*)$/;

/**
 * The operation a console request may be forwarded as: only what the gateway
 * declares (its router's table), under /v1/ or /v1alpha5/. Building the API
 * fills the table and touches no database.
 */
export function allowedOperation(method: string, versionedPath: string): DeclaredOperation | undefined {
  const match = VERSIONED.exec(versionedPath);
  if (!match) return undefined;
  if (declaredOperations.length === 0) createApi();
  return findOperation(method.toUpperCase(), match[2] ?? "");
}
