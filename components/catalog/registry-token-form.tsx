"use client";

import { useRef, useState, type FormEvent } from "react";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/field";
import { clearErrorOnChange, formValues, validData, type FieldErrors } from "@/components/common/native-form";
import { SecretDialog } from "@/components/common/secret-dialog";
import type { CcrTokenRequest } from "@/lib/contract/registry";
import type { CcrTokenResponse } from "@/lib/query/catalog";
import { ApiError, errorMessage } from "@/lib/query/fetcher";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { EXPIRY, type Expiry } from "./registry-token-expiry";
import type { registryTokenFormSchema } from "./registry-token-schema";
import { operationPath } from "@/lib/contract/operations";

type FormValues = z.input<typeof registryTokenFormSchema>;

// The rules (zod, the contract's schemas) are fetched when the form is first focused or sent.
const loadSchema = () => import("./registry-token-schema");
const preloadSchema = () => void loadSchema().catch(() => undefined);

function fileBase(alias: string | undefined): string {
  const safe = (alias ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return safe ? `registry-token-${safe}` : "registry-token";
}

/** A word the shell reads as itself: bare when it is plain, else in single quotes. */
function shellWord(value: string): string {
  return /^[\w@.+-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

interface Created {
  token: string;
  alias?: string;
  expiresAt?: string;
}

/** Creates a limited-scope registry token; the token is shown once in a dialog that closes only when saved. */
export function RegistryTokenForm({ registryHost, username }: { registryHost: string; username: string }) {
  const [created, setCreated] = useState<Created | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [expiry, setExpiry] = useState<Expiry>("90d");

  const mutation = useGatewayMutation<CcrTokenRequest, CcrTokenResponse>({
    holdsSecret: true,
    request: (body) => ({ method: "POST", path: operationPath("createCcrToken"), body }),
    invalidate: () => [],
    success: (_r, body) => (body.alias ? `Registry token “${body.alias}” created` : "Registry token created"),
    onSuccess: (result, body) => setCreated({ token: result.token, alias: body.alias, expiresAt: body.expires_at }),
  });

  const close = () => {
    // Drop every copy of the token the page holds: the dialog's and the mutation's (which leaves the cache with it: holdsSecret).
    setCreated(null);
    mutation.reset();
    formRef.current?.reset();
    setExpiry("90d");
    setErrors({});
  };

  // Set from the submit until its call settles: a second submit while the rules load would create a second token, never shown.
  const submitting = useRef(false);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (submitting.current) return;
    submitting.current = true;
    try {
      const form = e.currentTarget;
      const v = formValues(form);
      const values: FormValues = { alias: v.alias ?? "", expiry: (v.expiry ?? "never") as Expiry, expires_at: v.expires_at ?? "" };
      const { registryTokenFormSchema, toRequest } = await loadSchema();
      const data = validData(form, registryTokenFormSchema.safeParse(values), setErrors);
      // A failure is shown by the mutation (its toast and the alert below).
      if (data) await mutation.mutateAsync(toRequest(data)).catch(() => undefined);
    } finally {
      submitting.current = false;
    }
  };

  const failure = mutation.isError
    ? mutation.error instanceof ApiError && mutation.error.status === 403
      ? `You may not create registry tokens: ${errorMessage(mutation.error)}`
      : errorMessage(mutation.error)
    : null;

  return (
    <>
      <form
        ref={formRef}
        noValidate
        aria-label="Create a registry token"
        onFocus={preloadSchema}
        onChange={clearErrorOnChange(errors, setErrors)}
        onSubmit={(e) => void onSubmit(e)}
        className="space-y-4"
      >
        <Field label="Alias" htmlFor="ccr-alias" hint="Names the token where it is used, e.g. ci-pull. Optional." error={errors.alias}>
          <Input id="ccr-alias" name="alias" autoComplete="off" maxLength={255} defaultValue="" />
        </Field>
        <Field label="Expires" htmlFor="ccr-expiry" hint="A token that never expires stays valid until it is revoked.">
          <Select id="ccr-expiry" name="expiry" value={expiry} onChange={(e) => (setExpiry(e.target.value as Expiry), setErrors({ ...errors, expires_at: undefined }))}>
            {Object.entries(EXPIRY).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </Select>
        </Field>
        {expiry === "custom" ? (
          <Field label="Expiry date and time (UTC)" htmlFor="ccr-expires-at" error={errors.expires_at}>
            <Input id="ccr-expires-at" name="expires_at" type="datetime-local" step={60} />
          </Field>
        ) : null}
        {failure ? (
          <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            {failure}
          </p>
        ) : null}
        <Button type="submit" waiting={mutation.isPending}>
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
        // The token from the environment the .env sets (never on the command line, where the shell's history would keep it).
        usage={[{ label: "Sign in with Docker", command: `echo "$CCR_TOKEN" | docker login ${registryHost} --username ${shellWord(username)} --password-stdin` }]}
        onClose={close}
      />
    </>
  );
}
