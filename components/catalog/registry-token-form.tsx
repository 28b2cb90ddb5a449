"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { lazyZodResolver } from "@/components/ui/lazy-resolver";
import { SecretDialog } from "@/components/ui/secret-dialog";
import type { CcrTokenRequest } from "@/lib/contract/registry";
import type { CcrTokenResponse } from "@/lib/query/catalog";
import { ApiError } from "@/lib/query/fetcher";
import { errorMessage, useGatewayMutation } from "@/lib/query/mutation";
import { EXPIRY } from "./registry-token-expiry";
import type { registryTokenFormSchema } from "./registry-token-schema";

type FormValues = z.input<typeof registryTokenFormSchema>;

// The rules (zod, the contract's schemas) are fetched when the form is first validated or sent.
const loadSchema = () => import("./registry-token-schema");
const tokenResolver = lazyZodResolver<FormValues, FormValues>(() => loadSchema().then((m) => m.registryTokenFormSchema));

function fileBase(alias: string | undefined): string {
  const safe = (alias ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return safe ? `registry-token-${safe}` : "registry-token";
}

interface Created {
  token: string;
  alias?: string;
  expiresAt?: string;
}

/** Creates a limited-scope registry token; the token is shown once in a dialog that closes only when saved. */
export function RegistryTokenForm() {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<Created | null>(null);
  const form = useForm<FormValues>({ resolver: tokenResolver, defaultValues: { alias: "", expiry: "90d", expires_at: "" } });
  const { errors } = form.formState;
  const expiry = useWatch({ control: form.control, name: "expiry" });

  const mutation = useGatewayMutation<CcrTokenRequest, CcrTokenResponse>({
    request: (body) => ({ method: "POST", path: "/v1/ccr/tokens", body }),
    invalidate: () => [],
    success: (_r, body) => (body.alias ? `Registry token “${body.alias}” created` : "Registry token created"),
    onSuccess: (result, body) => setCreated({ token: result.token, alias: body.alias, expiresAt: body.expires_at }),
  });

  const close = () => {
    // Drop every copy of the token the page holds: the dialog's, the mutation's and the mutation cache's.
    const token = created?.token;
    setCreated(null);
    mutation.reset();
    const cache = queryClient.getMutationCache();
    for (const m of cache.getAll()) {
      if ((m.state.data as Partial<CcrTokenResponse> | undefined)?.token === token) cache.remove(m);
    }
    form.reset();
  };

  const failure = mutation.isError
    ? mutation.error instanceof ApiError && mutation.error.status === 403
      ? `You may not create registry tokens: ${errorMessage(mutation.error)}`
      : errorMessage(mutation.error)
    : null;

  return (
    <>
      <form noValidate aria-label="Create a registry token" onFocus={tokenResolver.preload}
        onSubmit={form.handleSubmit(async (v) => mutation.mutate((await loadSchema()).toRequest(v)))} className="space-y-4">
        <Field label="Alias" htmlFor="ccr-alias" hint="Names the token where it is used, e.g. ci-pull. Optional." error={errors.alias?.message}>
          <Input id="ccr-alias" autoComplete="off" maxLength={255} {...form.register("alias")} />
        </Field>
        <Field label="Expires" htmlFor="ccr-expiry" hint="A token that never expires stays valid until it is revoked.">
          <Select id="ccr-expiry" {...form.register("expiry")}>
            {Object.entries(EXPIRY).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </Select>
        </Field>
        {expiry === "custom" ? (
          <Field label="Expiry date and time (UTC)" htmlFor="ccr-expires-at" error={errors.expires_at?.message}>
            <Input id="ccr-expires-at" type="datetime-local" step={60} {...form.register("expires_at")} />
          </Field>
        ) : null}
        {failure ? (
          <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            {failure}
          </p>
        ) : null}
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? "Creating…" : "Create token"}
        </Button>
      </form>
      <SecretDialog
        open={created !== null}
        title={created?.alias ? `Registry token “${created.alias}”` : "Registry token"}
        fileBase={fileBase(created?.alias)}
        fields={
          created
            ? [
                { label: "Registry token", envName: "CCR_TOKEN", value: created.token, secret: true },
                ...(created.expiresAt ? [{ label: "Expires at", envName: "CCR_TOKEN_EXPIRES_AT", value: created.expiresAt }] : []),
              ]
            : []
        }
        onClose={close}
      />
    </>
  );
}
