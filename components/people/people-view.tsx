"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, UserPlus } from "lucide-react";
import { useQueryStates } from "nuqs";
import { useMemo, useState } from "react";
import { GuardedButton } from "@/components/common/guarded-button";
import { missingPermission, useOrgAccess } from "@/components/common/use-org";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { RelativeTime, DateText } from "@/components/common/dates";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Input, Select } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { PERSON_STATUSES } from "@/lib/contract/constants";
import { iamQueries } from "@/lib/query/iam";
import { iamKeys, peopleKeys, securityKeys } from "@/lib/query/keys";
import { peoplePaths, peopleQueries, type Person } from "@/lib/query/people";
import { InviteDialog } from "./invite-dialog";
import { PEOPLE_PAGE_SIZE, peopleSearchParams } from "./search-params";


const SOURCE_LABELS: Record<Person["source"], string> = { invite: "Invited", scim: "SCIM", sso: "SSO", admin: "Admin" };
const MFA_LABELS: Record<Person["mfa_methods"][number], string> = { totp: "Authenticator app", webauthn: "Passkey" };


/** The organization's people: search, status, how they came, their roles, when last active; invite and remove. */
export function PeopleView({ orgId, selfId }: { orgId: string; selfId: string }) {
  const [search, setSearch] = useQueryStates(peopleSearchParams);
  const [draft, setDraft] = useState(search.q);
  const access = useOrgAccess(orgId);
  const filters = { q: search.q || undefined, status: search.status ?? undefined, limit: PEOPLE_PAGE_SIZE, next_token: search.next ?? undefined, prev_token: search.prev ?? undefined };
  const page = useQuery({ ...peopleQueries.list(orgId, filters), placeholderData: keepPreviousData });
  const bindings = useQuery(iamQueries.bindings());
  // The list spans every organization of the caller's: a person's roles here are this organization's roles alone.
  const roles = useQuery(iamQueries.roles());
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Person | null>(null);
  const [resetting, setResetting] = useState<Person | null>(null);
  const [requiringSso, setRequiringSso] = useState<Person | null>(null);

  const remove = useGatewayMutation<Person>({
    request: (p) => ({ method: "DELETE", path: peoplePaths.remove(orgId, p.id) }),
    invalidate: () => [peopleKeys.org(orgId), iamKeys.bindingLists()],
    success: (_r, p) => `${p.email} removed from the organization`,
    onSuccess: () => setRemoving(null),
  });

  const signIn = useGatewayMutation<Person>({
    request: (p) => ({ method: "PATCH", path: peoplePaths.update(orgId, p.id), body: { sso_required: !p.sso_required } }),
    invalidate: () => [peopleKeys.org(orgId)],
    success: (_r, p) => (p.sso_required ? `${p.email} may sign in with an API key again` : `${p.email} must now sign in with SSO`),
    onSuccess: () => setRequiringSso(null),
  });

  const resetMfa = useGatewayMutation<Person>({
    request: (p) => ({ method: "DELETE", path: peoplePaths.resetMfa(orgId, p.id) }),
    // The MFA page counts who has enrolled.
    invalidate: () => [peopleKeys.org(orgId), securityKeys.mfa(orgId)],
    success: (_r, p) => `${p.email}'s second factors were reset`,
    onSuccess: () => setResetting(null),
  });

  const canWrite = access.can("iam.write");
  const mfaReason = access.ready && !access.can("mfa.manage") ? missingPermission("mfa.manage") : null;
  const writeReason = access.ready && !canWrite ? missingPermission("iam.write") : null;
  const seesAll = access.can("iam.read");

  const rolesKnown = roles.data !== undefined && bindings.data !== undefined;
  const rolesFailed = roles.isError || bindings.isError;
  const rolesOf = useMemo(() => {
    const map = new Map<string, string[]>();
    const orgRoleIds = new Set((roles.data?.roles ?? []).filter((r) => r.org_id === orgId).map((r) => r.id));
    for (const b of bindings.data?.role_bindings ?? []) {
      if (!orgRoleIds.has(b.role_id)) continue;
      const label = b.scope_type === "org" ? b.role_name : `${b.role_name} (project)`;
      const list = map.get(b.customer_id) ?? [];
      if (!list.includes(label)) list.push(label);
      map.set(b.customer_id, list);
    }
    return map;
  }, [bindings.data, roles.data, orgId]);

  // The last-owner guard counts owners only where the rows are the whole organization: the current answer (not the
  // previous filters' rows kept on screen), unfiltered and on one page. Elsewhere it stays off: it is advisory, and the
  // gateway refuses to remove the last active owner.
  const current = page.isPlaceholderData ? undefined : page.data;
  const ownerCount =
    current && !search.q && !search.status && !current.next_page_token && !current.prev_page_token
      ? current.items.filter((p) => p.relation === "owner" && p.status === "active").length
      : null;
  const columns = useMemo<ColumnDef<Person, unknown>[]>(
    () => [
      {
        id: "person",
        accessorFn: (p) => p.name || p.email,
        header: "Person",
        cell: ({ row }) => (
          <div className="min-w-0">
            <div className="font-medium">
              {row.original.name || row.original.email}
              {row.original.id === selfId ? (
                <Badge tone="info" className="ml-2">
                  you
                </Badge>
              ) : null}
            </div>
            {row.original.name ? <div className="text-xs text-slate-600 dark:text-slate-400">{row.original.email}</div> : null}
          </div>
        ),
      },
      {
        accessorKey: "status",
        header: "Status",
        cell: ({ row }) => <Badge tone={row.original.status === "active" ? "good" : "warn"}>{row.original.status === "active" ? "Active" : "Suspended"}</Badge>,
      },
      { accessorKey: "source", header: "Source", cell: ({ row }) => SOURCE_LABELS[row.original.source] },
      {
        id: "sign-in",
        header: "Console sign-in",
        cell: ({ row }) => (row.original.sso_required ? <Badge tone="info">SSO only</Badge> : <span className="text-slate-600 dark:text-slate-400">SSO or API key</span>),
      },
      {
        id: "mfa",
        header: "MFA",
        enableSorting: false,
        cell: ({ row }) =>
          row.original.mfa_methods.length === 0 ? (
            <span className="text-slate-600 dark:text-slate-400">Not enrolled</span>
          ) : (
            <ul aria-label={`Second factors of ${row.original.email}`} className="flex flex-wrap gap-1">
              {row.original.mfa_methods.map((m) => (
                <li key={m}>
                  <Badge tone="good">{MFA_LABELS[m]}</Badge>
                </li>
              ))}
            </ul>
          ),
      },
      {
        id: "roles",
        header: "Roles",
        enableSorting: false,
        cell: ({ row }) => {
          const roles = rolesOf.get(row.original.id);
          // Until this organization's roles are known, no binding can be told to be one of them.
          if (!rolesKnown) return <span className="text-xs text-slate-500 dark:text-slate-400">{rolesFailed ? "Not loaded" : "…"}</span>;
          if (!roles) return <span className="text-xs text-slate-500 dark:text-slate-400">{seesAll || row.original.id === selfId ? "None" : "Hidden"}</span>;
          return (
            <ul aria-label={`Roles of ${row.original.email}`} className="flex flex-wrap gap-1">
              {row.original.relation === "owner" ? (
                <li>
                  <Badge tone="info">Owner</Badge>
                </li>
              ) : null}
              {roles.map((r) => (
                <li key={r}>
                  <Badge>{r}</Badge>
                </li>
              ))}
            </ul>
          );
        },
      },
      {
        accessorKey: "last_active_at",
        header: "Last active",
        cell: ({ row }) => (seesAll ? <RelativeTime value={row.original.last_active_at || undefined} /> : <span className="text-slate-500 dark:text-slate-400">—</span>),
      },
      { accessorKey: "created_at", header: "Joined", cell: ({ row }) => <DateText value={row.original.created_at} /> },
      {
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        enableSorting: false,
        cell: ({ row }) => {
          const p = row.original;
          // The gateway lets only an owner change an owner's sign-in, reset their factors or remove them.
          const ownersOnly = (change: string) => (p.relation === "owner" && !access.isOwner ? `Only an owner of the organization can ${change} an owner.` : null);
          const reason =
            writeReason ??
            ownersOnly("remove") ??
            (p.relation === "owner" && p.status === "active" && ownerCount !== null && ownerCount <= 1
              ? "The last active owner of the organization cannot be removed."
              : null);
          return (
            <div className="flex justify-end gap-2">
              <GuardedButton
                size="sm"
                variant="ghost"
                reason={writeReason ?? ownersOnly(p.sso_required ? "lift SSO sign-in of" : "require SSO sign-in of")}
                aria-label={p.sso_required ? `Allow ${p.email} to sign in with an API key` : `Require ${p.email} to sign in with SSO`}
                waiting={signIn.isPending}
                // Lifting it takes nothing away; requiring it ends sessions and can lock the person out: asked first.
                onClick={() => (p.sso_required ? signIn.mutate(p) : setRequiringSso(p))}
              >
                {p.sso_required ? "Allow API key" : "Require SSO"}
              </GuardedButton>
              {p.mfa_methods.length > 0 ? (
                <GuardedButton size="sm" variant="ghost" reason={mfaReason ?? ownersOnly("reset the second factors of")} aria-label={`Reset the second factors of ${p.email}`} onClick={() => setResetting(p)}>
                  Reset MFA
                </GuardedButton>
              ) : null}
              <GuardedButton size="sm" variant="secondary" reason={reason} aria-label={`Remove ${p.email}`} onClick={() => setRemoving(p)}>
                Remove
              </GuardedButton>
            </div>
          );
        },
      },
    ],
    [rolesOf, rolesKnown, rolesFailed, seesAll, selfId, writeReason, mfaReason, access.isOwner, ownerCount, signIn],
  );

  return (
    <div className="space-y-6">
      <PageHeader
        title="People"
        description="Everyone in this organization: how they joined, the roles they hold and when they were last active."
        actions={
          <GuardedButton reason={writeReason} onClick={() => setInviting(true)}>
            <UserPlus aria-hidden /> Invite person
          </GuardedButton>
        }
      />
      <Card>
        <CardHeader title="People" description={seesAll ? undefined : "Roles and activity of others are shown to people with the iam.read permission."} />
        <form
          role="search"
          aria-label="Filter people"
          className="flex flex-wrap items-end gap-3 px-4 pt-4"
          onSubmit={(e) => {
            e.preventDefault();
            void setSearch({ q: draft.trim() || null, next: null, prev: null });
          }}
        >
          <label className="text-sm">
            <span className="block font-medium">Search</span>
            <Input type="search" placeholder="Name or e-mail" value={draft} onChange={(e) => setDraft(e.target.value)} className="w-64" />
          </label>
          <label className="text-sm">
            <span className="block font-medium">Status</span>
            <Select
              value={search.status ?? ""}
              onChange={(e) => void setSearch({ status: (e.target.value || null) as (typeof PERSON_STATUSES)[number] | null, next: null, prev: null })}
            >
              <option value="">Any status</option>
              <option value="active">Active</option>
              <option value="suspended">Suspended</option>
            </Select>
          </label>
          <Button type="submit" variant="secondary">
            Search
          </Button>
          {search.q || search.status ? (
            <Button
              type="button"
              variant="ghost"
              onClick={() => {
                setDraft("");
                void setSearch({ q: null, status: null, next: null, prev: null });
              }}
            >
              Clear
            </Button>
          ) : null}
        </form>
        <QueryState
          state={page}
          what="the organization's people"
          label="people"
          lines={4}
          isEmpty={(d) => d.items.length === 0}
          empty={<EmptyState title="No one matches">Try another name or e-mail, or another status.</EmptyState>}
        >
          {(data) => (
            <div className="space-y-3 p-4">
              <DataTable label="People" columns={columns} data={data.items} getRowId={(p) => p.id} />
              {/* While the previous filters' page is on screen (placeholder data), its tokens would page through their results, skipping the new filters' first page. */}
              {data.next_page_token || data.prev_page_token ? (
                <nav aria-label="Pages of people" className="flex justify-end gap-2">
                  <Button size="sm" variant="secondary" waiting={page.isPlaceholderData} disabled={!data.prev_page_token} onClick={() => void setSearch({ prev: data.prev_page_token, next: null })}>
                    <ChevronLeft aria-hidden /> Previous
                  </Button>
                  <Button size="sm" variant="secondary" waiting={page.isPlaceholderData} disabled={!data.next_page_token} onClick={() => void setSearch({ next: data.next_page_token, prev: null })}>
                    Next <ChevronRight aria-hidden />
                  </Button>
                </nav>
              ) : null}
            </div>
          )}
        </QueryState>
      </Card>
      <InviteDialog orgId={orgId} open={inviting} onOpenChange={setInviting} />
      <ConfirmDialog
        key={`mfa-${resetting?.id ?? "none"}`}
        open={resetting !== null}
        onOpenChange={(open) => {
          if (!open) setResetting(null);
        }}
        title={`Reset the second factors of ${resetting?.email ?? ""}?`}
        confirmLabel="Reset MFA"
        tone="danger"
        pending={resetMfa.isPending}
        onConfirm={() => resetting && resetMfa.mutate(resetting)}
      >
        <p>
          Every authenticator app, passkey and recovery code of <strong>{resetting?.name || resetting?.email}</strong> stops working, and their other console sessions end.
          Where MFA is required, their next sign-in asks them to set up a second factor again. Do this only once you are sure who is asking, for example after a lost phone or key.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        key={`sso-${requiringSso?.id ?? "none"}`}
        open={requiringSso !== null}
        onOpenChange={(open) => {
          if (!open) setRequiringSso(null);
        }}
        title={`Require ${requiringSso?.email ?? ""} to sign in with SSO?`}
        confirmLabel="Require SSO"
        tone="danger"
        pending={signIn.isPending}
        onConfirm={() => requiringSso && signIn.mutate(requiringSso)}
      >
        <p>
          <strong>{requiringSso?.name || requiringSso?.email}</strong> then signs in to the console only through this organization&apos;s SSO provider for{" "}
          <strong>{requiringSso?.email.split("@")[1] ?? "their e-mail domain"}</strong>, and their API-key sessions end at once. It takes effect once such a
          provider exists (one that signs in owners, for an owner): until then, and for an address at a public e-mail service, their key still signs them
          in.
        </p>
        {requiringSso?.id === selfId ? <p className="font-medium">This is you: a session you opened with your API key ends now.</p> : null}
      </ConfirmDialog>
      <ConfirmDialog
        key={removing?.id ?? "none"}
        open={removing !== null}
        onOpenChange={(open) => {
          if (!open) setRemoving(null);
        }}
        title={`Remove ${removing?.email ?? ""} from the organization?`}
        confirmLabel="Remove person"
        typeToConfirm={removing?.email}
        pending={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing)}
      >
        <p>
          <strong>{removing?.name || removing?.email}</strong> loses access to this organization at once, with every role they hold here. Their account
          stays, with any other organization they belong to.
        </p>
      </ConfirmDialog>
    </div>
  );
}
