import type { ApplyRoleBindingRequest, RoleBinding } from "@/lib/contract/iam";
import { failedChange } from "@/components/common/field-errors";

export type ScopeType = "org" | "project";

export type StagedChange =
  | { key: string; kind: "add"; roleId: string; roleName: string; allowedScopes: string[]; scopeType: ScopeType; scopeObjectId: string }
  | { key: string; kind: "remove"; binding: RoleBinding };

export function additionKey(roleId: string, scopeType: string, scopeObjectId: string): string {
  return `add:${roleId}|${scopeType}|${scopeObjectId}`;
}

export function removalKey(bindingId: string): string {
  return `remove:${bindingId}`;
}

/**
 * The one apply request for a user's staged changes, and for each entry of its
 * arrays the staged change it came from, so a failure the gateway names by index
 * (bindings_to_create[1]) can be traced back to the row the user staged.
 */
export function buildApply(userId: string, changes: StagedChange[]) {
  const body: ApplyRoleBindingRequest = { bindings_to_create: [], bindings_to_delete: [] };
  const createKeys: string[] = [];
  const deleteKeys: string[] = [];
  for (const c of changes) {
    if (c.kind === "add") {
      body.bindings_to_create.push({ customer_id: userId, role_id: c.roleId, scope_type: c.scopeType, scope_object_id: c.scopeObjectId });
      createKeys.push(c.key);
    } else {
      body.bindings_to_delete.push(c.binding.id);
      deleteKeys.push(c.key);
    }
  }
  return { body, createKeys, deleteKeys };
}

/** The staged change a failed apply's message names, if it names one. */
export function failedKey(message: string, apply: { createKeys: string[]; deleteKeys: string[] }): string | null {
  const ref = failedChange(message);
  if (!ref) return null;
  return (ref.kind === "create" ? apply.createKeys : apply.deleteKeys)[ref.index] ?? null;
}

/** Whether a role may be bound at the scope type (the gateway refuses otherwise). */
export function scopeAllowed(change: StagedChange): boolean {
  return change.kind === "remove" || change.allowedScopes.includes(change.scopeType);
}
