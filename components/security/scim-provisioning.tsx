"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Trash2 } from "lucide-react";
import { useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/field";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";
import { RelativeTime } from "@/components/common/dates";
import { FormError } from "@/components/common/form-errors";
import type { ScimGroupMapping, ScimGroupMappingsResponse } from "@/lib/contract/scim";
import { operationPath } from "@/lib/contract/operations";
import { ApiError, apiFetch } from "@/lib/query/fetcher";
import { iamQueries } from "@/lib/query/iam";
import { projectQueries } from "@/lib/query/projects";
import { scimQueries } from "@/lib/query/security";

export function ScimProvisioned({ orgId, integrationId }: { orgId: string; integrationId: string }) {
  const provisioned = useQuery(scimQueries.provisioned(orgId, integrationId));
  if (provisioned.isPending) {
    return (
      <Card>
        <WidgetSkeleton label="provisioned people and groups" lines={3} />
      </Card>
    );
  }
  if (provisioned.isError) {
    return (
      <Card>
        <ErrorState error={provisioned.error} what="provisioned people and groups" onRetry={() => void provisioned.refetch()} />
      </Card>
    );
  }
  const data = provisioned.data;
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Card>
        <CardHeader title={`People (${data.user_count})`} description="Provisioned or matched by this integration" />
        <CardBody>
          {data.users.length === 0 ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">No one yet: people appear here when the identity provider creates or matches them.</p>
          ) : (
            <table className="w-full text-sm" aria-label="Provisioned people">
              <thead>
                <tr className="text-left text-xs text-slate-500 dark:text-slate-400">
                  <th className="py-1 font-medium">userName</th>
                  <th className="py-1 font-medium">Name</th>
                  <th className="py-1 font-medium">Status</th>
                </tr>
              </thead>
              <tbody>
                {data.users.map((u) => (
                  <tr key={u.id} className="border-t border-slate-100 dark:border-slate-800">
                    <td className="py-1.5 break-all">{u.user_name}</td>
                    <td className="py-1.5">{u.display_name || u.email}</td>
                    <td className="py-1.5">
                      <Badge tone={u.status === "active" ? "good" : "warn"}>{u.status}</Badge>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </CardBody>
      </Card>
      <Card>
        <CardHeader title={`Groups (${data.group_count})`} description="Pushed by the identity provider" />
        <CardBody>
          {data.groups.length === 0 ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">No groups yet.</p>
          ) : (
            <table className="w-full text-sm" aria-label="Provisioned groups">
              <thead>
                <tr className="text-left text-xs text-slate-500 dark:text-slate-400">
                  <th className="py-1 font-medium">Group</th>
                  <th className="py-1 font-medium">Members</th>
                </tr>
              </thead>
              <tbody>
                {data.groups.map((g) => (
                  <tr key={g.id} className="border-t border-slate-100 dark:border-slate-800">
                    <td className="py-1.5">{g.display_name}</td>
                    <td className="py-1.5">{g.member_count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </CardBody>
      </Card>
    </div>
  );
}

type Draft = ScimGroupMapping & { key: number };
type Preview = Pick<ScimGroupMappingsResponse, "bindings_to_create" | "bindings_to_remove">;

let nextKey = 1;

const MAPPING_FIELDS: Record<string, string> = { group_display_name: "Group name", role_id: "Role", scope_type: "Scope", scope_object_id: "Project" };

/** A mapping's field as its row shows it: the scope's object is the organization on an organization-wide row. */
function fieldLabel(field: string, row: Draft): string {
  if (field === "scope_object_id" && row.scope_type === "org") return "Organization";
  return MAPPING_FIELDS[field] ?? field;
}

/**
 * The gateway's 400 about single mappings ("body.mappings[0].role_id: must be a UUID"), by row (from 0) and field, in
 * the words the rows use ("Role: must be a UUID"); null when the error names none (it is then shown whole).
 */
function mappingProblems(error: unknown): Map<number, Map<string, string>> | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const problems = new Map<number, Map<string, string>>();
  for (const part of error.message.split("; ")) {
    const match = /^body\.mappings\[(\d+)\]\.(\w+): (.+)$/.exec(part);
    if (!match) return null;
    const [, row, field, message] = match as unknown as [string, string, string, string];
    const fields = problems.get(Number(row)) ?? new Map<string, string>();
    problems.set(Number(row), fields.set(field, message));
  }
  return problems.size > 0 ? problems : null;
}

/**
 * A mapping's control as its row's problems mark it: invalid, and described by the row's message; `alsoFor`, fields
 * whose problems it carries (those the row shows no control for).
 */
function marked(problems: Map<string, string> | undefined, field: string, index: number, alsoFor: string[] = []) {
  const mine = [field, ...alsoFor].some((f) => problems?.has(f));
  return mine ? { "aria-invalid": true, "aria-describedby": `scim-mapping-${index + 1}-error` } : {};
}

/** The fields of a mapping its row shows no control for: its scope's kind when the role allows one, its object on an organization-wide row. */
function withoutControl(row: Draft, scopes: string[]): string[] {
  const both = scopes.includes("org") && scopes.includes("project");
  return [...(both ? [] : ["scope_type"]), ...(row.scope_type === "project" ? [] : ["scope_object_id"])];
}

/**
 * Where a mapping's role is bound: the organization, or one of its projects by name. A role allowing both asks which;
 * a project the list does not hold (deleted, or not visible to the caller) is shown by its id.
 */
function MappingScope(props: {
  index: number;
  row: Draft;
  orgId: string;
  scopes: string[];
  projects: Array<{ id: string; name: string }>;
  disabled: boolean;
  onChange: (patch: Partial<ScimGroupMapping>) => void;
  problems?: Map<string, string>;
}) {
  const { index, row, orgId, scopes, projects, disabled, onChange, problems } = props;
  const both = scopes.includes("org") && scopes.includes("project");
  const known = projects.some((p) => p.id === row.scope_object_id);
  return (
    <div className="grid grid-cols-1 gap-1">
      <label className="text-xs text-slate-500 dark:text-slate-400">
        Scope
        {both ? (
          <Select
            aria-label={`Scope ${index + 1}`}
            {...marked(problems, "scope_type", index)}
            value={row.scope_type}
            disabled={disabled}
            onChange={(e) => {
              const scope = e.target.value === "project" ? "project" : "org";
              onChange({ scope_type: scope, scope_object_id: scope === "org" ? orgId : "" });
            }}
          >
            <option value="org">Organization</option>
            <option value="project">One project</option>
          </Select>
        ) : row.scope_type === "org" ? (
          <Input aria-label={`Scope ${index + 1}`} value="Organization" readOnly disabled />
        ) : null}
      </label>
      {row.scope_type === "project" ? (
        <label className="text-xs text-slate-500 dark:text-slate-400">
          Project
          <Select aria-label={`Project ${index + 1}`} {...marked(problems, "scope_object_id", index)} value={row.scope_object_id} disabled={disabled} onChange={(e) => onChange({ scope_object_id: e.target.value })}>
            <option value="">Choose a project</option>
            {!known && row.scope_object_id ? <option value={row.scope_object_id}>{row.scope_object_id}</option> : null}
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
        </label>
      ) : null}
    </div>
  );
}

/** The group → role mappings, edited as a draft: preview the bindings it creates and removes, then save. */
export function ScimGroupMappings({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const queryClient = useQueryClient();
  const mappings = useQuery(scimQueries.mappings(orgId, integrationId));
  const roles = useQuery(iamQueries.roles());
  const projects = useQuery(projectQueries.list());
  const [draft, setDraft] = useState<Draft[] | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  // The draft's version, changed with the draft: a preview answered for an older draft is not shown beside this one.
  const version = useRef(0);
  const put = (dryRun: boolean) =>
    apiFetch<ScimGroupMappingsResponse>(operationPath("putSCIMGroupMappings", { org_id: orgId, integration_id: integrationId }), {
      method: "PUT",
      query: dryRun ? { dry_run: "true" } : undefined,
      body: { mappings: (draft ?? []).map((m) => ({ group_display_name: m.group_display_name, role_id: m.role_id, scope_type: m.scope_type, scope_object_id: m.scope_object_id })) },
    });
  const previewing = useMutation<ScimGroupMappingsResponse, Error, number>({
    mutationFn: () => put(true),
    onSuccess: (r, previewed) => {
      if (previewed === version.current) setPreview(r);
    },
  });
  const saving = useMutation({
    mutationFn: () => put(false),
    onSuccess: async (r) => {
      // The PUT answers the saved mappings: shown at once, where clearing the draft first showed the old ones until a refetch.
      queryClient.setQueryData(scimQueries.mappings(orgId, integrationId).queryKey, { mappings: r.mappings });
      setPreview({ bindings_to_create: r.bindings_to_create, bindings_to_remove: r.bindings_to_remove });
      setDraft(null);
      version.current += 1;
      await Promise.all([["iam"], ["audit-logs"]].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
  });
  if (mappings.isPending) {
    return (
      <Card>
        <WidgetSkeleton label="group mappings" lines={3} />
      </Card>
    );
  }
  if (mappings.isError) {
    return (
      <Card>
        <ErrorState error={mappings.error} what="group mappings" onRetry={() => void mappings.refetch()} />
      </Card>
    );
  }
  // Keyed by place until the first edit (a new key each render would move the focus at every refetch).
  const rows: Draft[] =
    draft ??
    mappings.data.mappings.map((m, index) => ({ group_display_name: m.group_display_name, role_id: m.role_id, scope_type: m.scope_type as "org" | "project", scope_object_id: m.scope_object_id, key: -1 - index }));
  const roleList = roles.data?.roles.filter((r) => r.org_id === orgId) ?? [];
  const projectList = (projects.data?.items ?? []).filter((p) => p.organization_id === orgId);
  const edit = (next: Draft[]) => {
    setDraft(next);
    setPreview(null);
    // An older draft's preview is not shown, nor its error (reset: a preview still out no longer reports here), nor
    // the refusal of its save: the rows it marked may be mended now.
    previewing.reset();
    saving.reset();
    version.current += 1;
  };
  // A refusal names the rows of the draft it was about: none once the draft is gone.
  const scopesOf = (row: Draft) => roleList.find((r) => r.id === row.role_id)?.allowed_scopes ?? [row.scope_type];
  const problems = draft === null ? null : mappingProblems(previewing.error ?? saving.error);
  const update = (key: number, patch: Partial<ScimGroupMapping>) => edit(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  // Saving clears the draft: an edit made meanwhile would be lost, so none is taken.
  const disabled = Boolean(disabledReason) || saving.isPending;
  return (
    <Card>
      <CardHeader title="Group mappings" description="Members of a group the identity provider pushes hold the role bindings mapped to its name." />
      <CardBody className="space-y-3">
        {rows.length === 0 ? <p className="text-sm text-slate-500 dark:text-slate-400">No mappings: groups grant no roles.</p> : null}
        {rows.map((row, index) => (
          <div key={row.key} className="grid grid-cols-1 items-end gap-2 sm:grid-cols-[2fr_2fr_1fr_auto]" data-testid="scim-mapping-row">
            <label className="text-xs text-slate-500 dark:text-slate-400">
              Group name
              <Input
                aria-label={`Group name ${index + 1}`}
                {...marked(problems?.get(index), "group_display_name", index)}
                value={row.group_display_name}
                disabled={disabled}
                onChange={(e) => update(row.key, { group_display_name: e.target.value })}
              />
            </label>
            <label className="text-xs text-slate-500 dark:text-slate-400">
              Role
              <Select
                aria-label={`Role ${index + 1}`}
                {...marked(problems?.get(index), "role_id", index, withoutControl(row, scopesOf(row)))}
                value={row.role_id}
                disabled={disabled}
                onChange={(e) => {
                  const role = roleList.find((r) => r.id === e.target.value);
                  // The scope chosen stays when the new role allows it: changing a project's role never widens it to every project.
                  if (!role || role.allowed_scopes.includes(row.scope_type)) {
                    update(row.key, { role_id: e.target.value });
                    return;
                  }
                  const scope = role.allowed_scopes.includes("org") ? "org" : "project";
                  update(row.key, { role_id: e.target.value, scope_type: scope, scope_object_id: scope === "org" ? orgId : "" });
                }}
              >
                <option value="">Choose a role</option>
                {roleList.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.role_name}
                  </option>
                ))}
              </Select>
            </label>
            <MappingScope
              index={index}
              row={row}
              orgId={orgId}
              scopes={scopesOf(row)}
              projects={projectList}
              disabled={disabled}
              onChange={(patch) => update(row.key, patch)}
              problems={problems?.get(index)}
            />
            <Button variant="ghost-danger" size="sm" aria-label={`Remove mapping ${index + 1}`} disabled={disabled} onClick={() => edit(rows.filter((r) => r.key !== row.key))}>
              <Trash2 />
            </Button>
            {problems?.get(index) ? (
              <p id={`scim-mapping-${index + 1}-error`} className="text-xs text-red-600 sm:col-span-4 dark:text-red-400">
                Mapping {index + 1}:{" "}
                {[...problems.get(index)!].map(([field, message]) => `${fieldLabel(field, row)}: ${message}`).join("; ")}
              </p>
            ) : null}
          </div>
        ))}
        <div className="flex flex-wrap gap-2">
          <Button
            variant="secondary"
            size="sm"
            disabled={disabled}
            onClick={() => edit([...rows, { group_display_name: "", role_id: "", scope_type: "org", scope_object_id: orgId, key: nextKey++ }])}
          >
            <Plus /> Add mapping
          </Button>
          <Button variant="secondary" size="sm" disabled={disabled || draft === null || previewing.isPending} onClick={() => previewing.mutate(version.current)}>
            Preview changes
          </Button>
          <Button size="sm" disabled={disabled || draft === null || saving.isPending} onClick={() => saving.mutate()}>
            {saving.isPending ? "Saving…" : "Save mappings"}
          </Button>
          {draft !== null ? (
            <Button
              variant="ghost"
              size="sm"
              disabled={saving.isPending}
              onClick={() => {
                setDraft(null);
                setPreview(null);
                previewing.reset();
                saving.reset();
                version.current += 1;
              }}
            >
              Discard
            </Button>
          ) : null}
        </div>
        {problems ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400">
            {/* The gateway names at most five problems. */}
            The gateway refused {problems.size === 1 ? "a mapping" : `${problems.size >= 5 ? "at least " : ""}${problems.size} mappings`}: see the marked{" "}
            {problems.size === 1 ? "row" : "rows"}.
          </p>
        ) : (
          <FormError error={previewing.error ?? saving.error} />
        )}
        {preview ? (
          <div className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700" data-testid="scim-mapping-preview" aria-live="polite">
            <p className="font-medium">
              {saving.isSuccess && draft === null ? "Applied" : "Preview"}: {preview.bindings_to_create?.length ?? 0} binding(s) to create, {preview.bindings_to_remove?.length ?? 0} to remove
            </p>
            <ul className="mt-2 space-y-1">
              {(preview.bindings_to_create ?? []).slice(0, 50).map((b) => (
                <li key={`c-${b.user_id}-${b.group_id}-${b.role_id}-${b.scope_object_id}`} className="text-emerald-700 dark:text-emerald-400">
                  + {b.email}: {b.role_name} ({b.scope_type}) via {b.group_display_name}
                </li>
              ))}
              {(preview.bindings_to_remove ?? []).slice(0, 50).map((b) => (
                <li key={`r-${b.user_id}-${b.group_id}-${b.role_id}-${b.scope_object_id}`} className="text-red-700 dark:text-red-400">
                  − {b.email}: {b.role_name} ({b.scope_type}) via {b.group_display_name}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </CardBody>
    </Card>
  );
}

/** What the identity provider did lately: the audit log's entries with this integration as actor. */
export function ScimActivity({ orgId, integrationId }: { orgId: string; integrationId: string }) {
  const activity = useQuery(scimQueries.activity(orgId, integrationId));
  return (
    <Card>
      <CardHeader title="Provisioning activity" description="The identity provider's changes in the last 30 days, from the audit log" />
      <CardBody>
        {activity.isPending ? (
          <WidgetSkeleton label="provisioning activity" lines={3} />
        ) : activity.isError ? (
          <ErrorState error={activity.error} what="provisioning activity" onRetry={() => void activity.refetch()} />
        ) : activity.data.items.length === 0 ? (
          <p className="text-sm text-slate-500 dark:text-slate-400">No provisioning activity yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="Provisioning activity">
            {activity.data.items.map((e, i) => (
              <li key={`${i}-${e.start_time}-${e.action_detail}-${e.target_names.join(",")}`} className="flex flex-wrap items-baseline justify-between gap-2 py-1.5">
                <span>
                  {e.action_detail.replace(/^SCIM: /, "")} <span className="text-slate-500 dark:text-slate-400">{e.target_names.join(", ")}</span>
                </span>
                <span className="text-xs text-slate-500 dark:text-slate-400">
                  <RelativeTime value={e.start_time} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </CardBody>
    </Card>
  );
}
