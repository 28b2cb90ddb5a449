"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog, DialogContent, FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { errorMessage } from "@/lib/query/fetcher";
import { iamQueries } from "@/lib/query/iam";
import { iamKeys, peopleKeys } from "@/lib/query/keys";
import { peoplePaths, type Person } from "@/lib/query/people";

const BASELINE = "Organization Member";

/** Invites someone by e-mail with organization-wide roles; everyone invited holds the baseline role. */
export function InviteDialog({ orgId, open, onOpenChange }: { orgId: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const roles = useQuery({ ...iamQueries.roles(), enabled: open });
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [picked, setPicked] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const reset = () => {
    setEmail("");
    setName("");
    setPicked([]);
    setProblem(null);
  };
  const invite = useGatewayMutation<{ email: string; name: string; role_ids: string[] }, Person>({
    request: (body) => ({ method: "POST", path: peoplePaths.invite(orgId), body }),
    invalidate: () => [peopleKeys.org(orgId), iamKeys.bindingLists()],
    success: (person) => `${person.email} invited`,
    onSuccess: () => {
      reset();
      onOpenChange(false);
    },
  });
  // Every way out (Escape, the close button, Cancel) clears the form and the last answer, so that it reopens empty.
  const changeOpen = (next: boolean) => {
    if (!next) {
      reset();
      invite.reset();
    }
    onOpenChange(next);
  };
  // Only roles that may be granted organization-wide; the baseline role comes with every invitation.
  const offered = (roles.data?.roles ?? []).filter((r) => r.org_id === orgId && r.allowed_scopes.includes("org") && r.role_name !== BASELINE);

  return (
    <Dialog open={open} onOpenChange={changeOpen}>
      <DialogContent title="Invite a person">
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const trimmed = email.trim();
            if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed)) {
              setProblem("Enter the person's e-mail address, such as ada@example.com.");
              return;
            }
            setProblem(null);
            invite.mutate({ email: trimmed, name: name.trim(), role_ids: picked });
          }}
          className="space-y-4"
        >
          <Field label="E-mail" htmlFor="invite-email" error={problem ?? undefined}>
            <Input id="invite-email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <Field label="Name (optional)" htmlFor="invite-name">
            <Input id="invite-name" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <fieldset>
            <legend className="text-sm font-medium">Roles across the organization</legend>
            <p className="text-xs text-slate-600 dark:text-slate-400">Everyone invited holds {BASELINE}. Project roles are granted on the IAM page.</p>
            <div className="mt-2 space-y-1.5">
              {offered.map((role) => (
                <label key={role.id} className="flex items-start gap-2 text-sm">
                  <input
                    type="checkbox"
                    className="mt-0.5"
                    checked={picked.includes(role.id)}
                    onChange={(e) => setPicked((p) => (e.target.checked ? [...p, role.id] : p.filter((id) => id !== role.id)))}
                  />
                  <span>
                    <span className="font-medium">{role.role_name}</span>
                    <span className="block text-xs text-slate-600 dark:text-slate-400">{role.description}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          {/* The address refused is the one sent, not what the field holds since. */}
          {invite.isError ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400">
              {(invite.error as { status?: number }).status === 409 ? `${invite.variables?.email ?? email.trim()} is already a person of this organization.` : errorMessage(invite.error)}
            </p>
          ) : null}
          <FormDialogFooter onCancel={() => changeOpen(false)} pending={invite.isPending} submitLabel="Send invitation" pendingLabel="Inviting…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
