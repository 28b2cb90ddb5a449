import "server-only";
import { matchVersionedOperation, type OperationId } from "@/lib/contract/operations";

/**
 * The operation a console request may be forwarded as: only what the gateway declares (the
 * operations table of lib/contract), under /v1/ or /v1alpha5/.
 */
export function allowedOperation(method: string, versionedPath: string): OperationId | undefined {
  return matchVersionedOperation(method, versionedPath);
}
