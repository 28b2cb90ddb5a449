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

/** The gateway's owner-for-owner rule: an owner's bindings are changed by an owner only. */
export const OWNER_BINDINGS_ONLY = "Only an owner of the organization can change the role bindings of an owner.";

/**
 * Why the caller may not change this person's bindings (beyond lacking iam.write), or null:
 * the person is an owner and the caller is not. A relation not known (a directory past its
 * first page) blocks nothing: the gateway refuses, and its answer is shown.
 */
export function personLock(relation: string | undefined, callerIsOwner: boolean): string | null {
  return relation === "owner" && !callerIsOwner ? OWNER_BINDINGS_ONLY : null;
}

/** Why a binding may not be removed here, or null: one granted through a SCIM group goes with the group. */
export function bindingLock(binding: Pick<RoleBinding, "via_group_id">): string | null {
  return binding.via_group_id
    ? "Granted through a SCIM group mapping: it goes when the person leaves the group in the identity provider, or when the mapping changes on the SCIM page."
    : null;
}

/**
 * A refused apply in words: what the gateway's answer means for the person editing, without
 * field paths or ids. Statuses the editor cannot explain keep the gateway's text, stripped of its field.
 */
export function explainRefusal(status: number | undefined, message: string): string {
  if (status === undefined) return "The gateway could not be reached, so it is not known whether the changes were made.";
  // The owner-for-owner rule is the gateway's own sentence: the caller does hold iam.write.
  if (status === 403 && /only an owner/i.test(message)) return OWNER_BINDINGS_ONLY;
  if (status === 403) return "You may not change role bindings in this organization: that needs the iam.write permission. Ask an owner of the organization.";
  if (status === 404) return "This person is no longer in the organization.";
  const text = message.replace(/^[\w.[\]]+:\s*/, "");
  let m = /^role (.+) cannot be bound at (\w+) scope \(allowed: ([^)]*)\)/.exec(text);
  if (m) {
    const where = (s: string) => (s.trim() === "org" ? "across the organization" : "on a project");
    return `${m[1]} cannot be granted ${where(m[2]!)}; it can be granted only ${m[3]!.split(",").map(where).join(" or ")}.`;
  }
  if (/the user already has this binding/.test(text)) return "This person already holds that role there.";
  if (/not a member of the role's organization/.test(text)) return "This person is not a member of the organization, so they cannot hold its roles.";
  if ((m = /^role binding .+ of this user not found/.exec(text))) return "That binding no longer exists: someone else may have removed it. Reload the current bindings.";
  if (/^project .+ not found/.test(text)) return "That project no longer exists.";
  if (/^role .+ not found/.test(text)) return "That role no longer exists in this organization.";
  if (/listed twice/.test(text)) return "The same change is staged twice.";
  return text.charAt(0).toUpperCase() + text.slice(1);
}
