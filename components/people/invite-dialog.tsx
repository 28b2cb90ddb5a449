"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog, DialogContent, FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { sentence } from "@/components/common/form-errors";
import { invitePersonRequestSchema } from "@/lib/contract/people";
import { ApiError, errorMessage } from "@/lib/query/fetcher";
import { iamQueries } from "@/lib/query/iam";
import { iamKeys, peopleKeys } from "@/lib/query/keys";
import { peoplePaths, type Person } from "@/lib/query/people";

const BASELINE = "Organization Member";

/** The gateway's 400 naming the invitation's e-mail or name ("body.email: …"), by field; null for any other failure. */
function fieldProblems(error: unknown): Partial<Record<"email" | "name", string>> | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const found: Partial<Record<"email" | "name", string>> = {};
  for (const part of error.message.split("; ")) {
    const match = /^body\.(email|name): (.+)$/.exec(part);
    if (match) found[match[1] as "email" | "name"] ??= sentence(match[2]);
  }
  return Object.keys(found).length > 0 ? found : null;
}

/** Invites someone by e-mail with organization-wide roles; everyone invited holds the baseline role. */
export function InviteDialog({ orgId, open, onOpenChange }: { orgId: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const roles = useQuery({ ...iamQueries.roles(), enabled: open });
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [picked, setPicked] = useState<string[]>([]);
  // Each field's problem, as the gateway's contract words it (checked here first), or as the gateway's 400 names it.
  const [problems, setProblems] = useState<Partial<Record<"email" | "name", string>>>({});
  const reset = () => {
    setEmail("");
    setName("");
    setPicked([]);
    setProblems({});
  };
  const invite = useGatewayMutation<{ email: string; name: string; role_ids: string[] }, Person>({
    request: (body) => ({ method: "POST", path: peoplePaths.invite(orgId), body }),
    invalidate: () => [peopleKeys.org(orgId), iamKeys.bindingLists()],
    success: (person) => `${person.email} invited`,
    failure: (error) => (fieldProblems(error) ? "The invitation was refused: see the form" : errorMessage(error)),
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
            const body = { email: email.trim(), name: name.trim(), role_ids: picked };
            const checked = invitePersonRequestSchema.safeParse(body);
            const found: Partial<Record<"email" | "name", string>> = {};
            for (const issue of checked.success ? [] : checked.error.issues) {
              const field = issue.path[0];
              if ((field === "email" || field === "name") && !found[field]) found[field] = sentence(issue.message);
            }
            if (body.email === "") found.email = "Enter the person's e-mail address, such as ada@example.com.";
            setProblems(found);
            if (Object.keys(found).length > 0) return;
            invite.mutate(body, { onError: (error) => setProblems(fieldProblems(error) ?? {}) });
          }}
          className="space-y-4"
        >
          <Field label="E-mail" htmlFor="invite-email" error={problems.email}>
            <Input id="invite-email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <Field label="Name (optional)" htmlFor="invite-name" error={problems.name}>
            <Input id="invite-name" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <fieldset>
            <legend className="text-sm font-medium">Roles across the organization</legend>
            <p className="text-xs text-slate-600 dark:text-slate-400">Everyone invited holds {BASELINE}. Project roles are granted on the IAM page.</p>
            {roles.isError ? (
              <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
                The roles could not be loaded ({errorMessage(roles.error)}): the person can be invited with {BASELINE} alone, or close and try again.
              </p>
            ) : null}
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
          {invite.isError && !fieldProblems(invite.error) ? (
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
