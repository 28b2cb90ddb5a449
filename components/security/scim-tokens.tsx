"use client";

import { useQuery } from "@tanstack/react-query";
import { AlertTriangle } from "lucide-react";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { lazyZodResolver } from "@/components/ui/lazy-resolver";
import { SecretDialog } from "@/components/ui/secret-dialog";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import type { createScimTokenRequestSchema, limitedUsageApiKeyPostResponseSchema, ScimTokenInfo } from "@/lib/contract/scim";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/lib/query/mutation";
import { scimQueries, securityPaths } from "@/lib/query/security";
import { ActionsHeader } from "./actions-header";
import { DateText, EXPIRY_WARNING_DAYS, ExpiryCell, expiryState, RelativeTime } from "./dates";
import { dateFromToday, endOfDayUtc, ExpiryField } from "./expiry-field";
import { applyGatewayErrors, FormError, sentence } from "./form-errors";
import { SCIM_TOKEN_ENV, tokenFileBase } from "./scim-token-file";
import type { scimTokenFormSchema } from "./scim-token-form";

type CreateTokenBody = z.input<typeof createScimTokenRequestSchema>;
type CreateTokenResponse = z.infer<typeof limitedUsageApiKeyPostResponseSchema>;
type FormValues = z.input<typeof scimTokenFormSchema>;
type FormOutput = z.output<typeof scimTokenFormSchema>;

// The form's rules (zod, the contract's schemas) are fetched when it is first validated.
const tokenResolver = lazyZodResolver<FormValues, FormOutput>(() => import("./scim-token-form").then((m) => m.scimTokenFormSchema));

const defaults = (): FormValues => ({ alias: "", expires_on: dateFromToday(90) });

function CreateTokenButton({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const [open, setOpen] = useState(false);
  const [secret, setSecret] = useState<CreateTokenResponse["api_key_info"] | null>(null);
  const form = useForm<FormValues, unknown, FormOutput>({ resolver: tokenResolver, defaultValues: defaults(), mode: "onTouched" });
  const create = useGatewayMutation<CreateTokenBody, CreateTokenResponse>({
    request: (body) => ({ method: "POST", path: securityPaths.scimTokens(orgId, integrationId), body }),
    invalidate: () => [securityKeys.scimIntegration(orgId, integrationId), securityKeys.scimIntegrations(orgId)],
    success: (r) => `Token ${r.api_key_info.alias} created`,
    onSuccess: (r) => {
      setOpen(false);
      form.reset(defaults());
      setSecret(r.api_key_info);
    },
  });
  const submit = form.handleSubmit((v) =>
    create.mutate(
      { alias: v.alias, expires_at: endOfDayUtc(v.expires_on) },
      { onError: (error) => applyGatewayErrors(error, form.setError, { alias: "alias", expires_at: "expires_on" }) },
    ),
  );
  const { errors } = form.formState;
  return (
    <>
      <Button
        disabled={disabledReason !== undefined}
        title={disabledReason}
        aria-describedby={disabledReason ? "scim-permission" : undefined}
        onClick={() => {
          create.reset();
          setOpen(true);
        }}
      >
        New token
      </Button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent title="New SCIM token" description="Give it to the identity provider. Keep the old token until the provider uses the new one, then delete the old one.">
          <form onSubmit={(e) => void submit(e)} onFocus={tokenResolver.preload} noValidate className="space-y-4">
            <Field label="Alias" htmlFor="scim-new-token-alias" error={sentence(errors.alias?.message)} hint="e.g. okta-2026">
              <Input id="scim-new-token-alias" autoComplete="off" {...form.register("alias")} />
            </Field>
            <ExpiryField
              id="scim-new-token-expiry"
              label="Expires on"
              error={errors.expires_on?.message}
              input={form.register("expires_on")}
              onPick={(d) => form.setValue("expires_on", d, { shouldValidate: true, shouldDirty: true })}
            />
            <FormError error={create.error} />
            <DialogFooter>
              <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={create.isPending}>
                {create.isPending ? "Creating…" : "Create token"}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
      <SecretDialog
        open={secret !== null}
        title={secret ? `Token ${secret.alias} created` : "SCIM token"}
        fileBase={tokenFileBase(secret?.alias ?? "")}
        fields={
          secret
            ? [
                { label: "Token ID", envName: SCIM_TOKEN_ENV.id, value: secret.key_id },
                { label: "Bearer token", envName: SCIM_TOKEN_ENV.token, value: secret.api_key, secret: true },
              ]
            : []
        }
        onClose={() => {
          setSecret(null);
          create.reset();
        }}
      />
    </>
  );
}

/** One integration's tokens: alias, dates, a warning before they expire, create and delete. */
export function ScimTokens({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const tokens = useQuery(scimQueries.tokens(orgId, integrationId));
  const [deleting, setDeleting] = useState<ScimTokenInfo | null>(null);
  const remove = useGatewayMutation<ScimTokenInfo>({
    request: (t) => ({ method: "DELETE", path: securityPaths.scimToken(orgId, integrationId, t.key_id) }),
    invalidate: () => [securityKeys.scimIntegration(orgId, integrationId), securityKeys.scimIntegrations(orgId)],
    success: (_r, t) => `Token ${t.alias} deleted`,
    onSuccess: () => setDeleting(null),
  });

  const columns = useMemo<ColumnDef<ScimTokenInfo, unknown>[]>(
    () => [
      { accessorKey: "alias", header: "Alias", cell: ({ row }) => <span className="font-medium">{row.original.alias}</span> },
      { accessorKey: "key_id", header: "Token ID", cell: ({ row }) => <code className="font-mono text-xs">{row.original.key_id}</code> },
      { accessorKey: "created_at", header: "Created", cell: ({ row }) => <DateText value={row.original.created_at} /> },
      { accessorKey: "expires_at", header: "Expires", cell: ({ row }) => <ExpiryCell value={row.original.expires_at} /> },
      { accessorKey: "last_used", header: "Last used", cell: ({ row }) => <RelativeTime value={row.original.last_used} /> },
      {
        id: "actions",
        header: () => <ActionsHeader />,
        enableSorting: false,
        cell: ({ row }) => (
          <Button
            variant="ghost-danger"
            size="sm"
            disabled={disabledReason !== undefined}
            title={disabledReason}
            aria-label={`Delete token ${row.original.alias}`}
            onClick={() => setDeleting(row.original)}
          >
            Delete
          </Button>
        ),
      },
    ],
    [disabledReason],
  );

  const items = tokens.data?.items ?? [];
  const expiring = items.filter((t) => {
    const s = expiryState(t.expires_at);
    return s === "soon" || s === "expired";
  });
  const healthy = items.length - expiring.length;
  return (
    <Card>
      <CardHeader
        title="Tokens"
        description="The identity provider authenticates with one of these. Keep two during a rotation so provisioning has no gap."
        action={<CreateTokenButton orgId={orgId} integrationId={integrationId} disabledReason={disabledReason} />}
      />
      {tokens.isPending ? (
        <WidgetSkeleton label="tokens" lines={3} />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} what="the tokens" onRetry={() => void tokens.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No tokens">The identity provider cannot connect until you create one.</EmptyState>
      ) : (
        <div className="space-y-3 p-4">
          {expiring.length > 0 ? (
            <p
              role="status"
              className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
            >
              <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
              <span>
                {expiring.map((t) => t.alias).join(", ")} {expiring.length === 1 ? "expires" : "expire"} within {EXPIRY_WARNING_DAYS} days or already
                expired.{" "}
                {healthy > 0
                  ? "Make sure the identity provider uses a newer token before then."
                  : "Create a new token and give it to the identity provider before then, or provisioning stops."}
              </span>
            </p>
          ) : null}
          <DataTable label="SCIM tokens" columns={columns} data={items} getRowId={(t) => t.key_id} />
        </div>
      )}
      <ConfirmDialog
        key={deleting?.key_id ?? "none"}
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title={`Delete token ${deleting?.alias ?? ""}?`}
        confirmLabel="Delete token"
        typeToConfirm={deleting?.alias}
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          The identity provider can no longer authenticate with this token; if it still uses it, provisioning stops until it gets another. The other{" "}
          {Math.max(0, items.length - 1)} {items.length - 1 === 1 ? "token keeps" : "tokens keep"} working.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
