"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useController, useForm, type FieldError, type Merge } from "react-hook-form";
import type { z } from "zod";
import { FormDialogFooter } from "@/components/ui/dialog";
import { CreateDialog, useCreateDialog } from "@/components/common/create-dialog";
import { Field, Input } from "@/components/ui/field";
import { createSsoProviderRequestSchema, type CreateSsoProviderRequest, type SsoProvider } from "@/lib/contract/sso";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { securityPaths } from "@/lib/query/security";
import { DomainTagsInput } from "./domain-tags-input";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";

type FormValues = z.input<typeof createSsoProviderRequestSchema>;

/** The list's own error ("must hold at least one domain") or its first bad element's. */
function domainsError(error: Merge<FieldError, Array<FieldError | undefined>> | undefined): string | undefined {
  if (!error) return undefined;
  if (error.message) return error.message;
  if (error.root?.message) return error.root.message;
  for (const [key, value] of Object.entries(error)) {
    if (/^\d+$/.test(key) && value && typeof value === "object" && "message" in value && typeof value.message === "string") return value.message;
  }
  return undefined;
}

/** The add-provider form, checked as the gateway checks it: an https issuer, a client id, valid e-mail domains. */
export function CreateSsoProviderDialog({ orgId, disabledReason, defaultOpen = false }: { orgId: string; disabledReason?: string; defaultOpen?: boolean }) {
  const flow = useCreateDialog(defaultOpen);
  const [draftError, setDraftError] = useState<string | null>(null);
  const form = useForm<FormValues, unknown, CreateSsoProviderRequest>({
    resolver: zodResolver(createSsoProviderRequestSchema),
    defaultValues: { issuer_uri: "", client_id: "", client_secret: undefined, email_domains: [] },
    mode: "onTouched",
  });
  const create = useGatewayMutation<CreateSsoProviderRequest, SsoProvider>({
    // The client secret typed is among its variables.
    holdsSecret: true,
    request: (body) => ({ method: "POST", path: securityPaths.ssoProviders(orgId), body }),
    invalidate: () => [securityKeys.ssoProviders(orgId)],
    success: (p) => `SSO provider ${new URL(p.issuer_uri).host} added`,
    onSuccess: () => {
      flow.setOpen(false);
      form.reset();
      // Let go of the mutation, the secret among its variables, once its call has settled: it leaves the cache then.
      setTimeout(() => create.reset());
    },
  });
  // Closed without adding (Cancel, Escape): the secret typed and the mutation holding it are let go; the rest stays for next time.
  const dismiss = () => {
    form.resetField("client_secret");
    create.reset();
  };
  const submit = form.handleSubmit((body) => {
    if (draftError) return;
    create.mutate(body, {
      onError: (error) => applyGatewayErrors(error, form.setError, { issuer_uri: "issuer_uri", client_id: "client_id", client_secret: "client_secret", email_domains: "email_domains" }),
    });
  });
  const { errors } = form.formState;
  const domains = useController({ control: form.control, name: "email_domains" });
  return (
    <CreateDialog
      flow={flow}
      label="Add provider"
      disabledReason={disabledReason}
      reasonId="sso-permission"
      onOpen={() => {
        create.reset();
        setDraftError(null);
      }}
      onDismiss={dismiss}
      title="Add an SSO provider"
      description="An OpenID Connect identity provider. People whose e-mail address is at one of its domains sign in through it."
    >
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
        <Field label="Issuer URI" htmlFor="sso-issuer" error={sentence(errors.issuer_uri?.message)} hint="The provider's issuer identifier, e.g. https://login.example.com/oauth2/default">
          <Input id="sso-issuer" type="url" inputMode="url" autoComplete="off" placeholder="https://" {...form.register("issuer_uri")} />
        </Field>
        <Field label="Client ID" htmlFor="sso-client-id" error={sentence(errors.client_id?.message)} hint="The ID of the application registered for this console at the provider.">
          <Input id="sso-client-id" autoComplete="off" {...form.register("client_id")} />
        </Field>
        <Field
          label="Client secret"
          htmlFor="sso-client-secret"
          error={sentence(errors.client_secret?.message)}
          hint="Needed before anyone can sign in. Stored encrypted, never shown again; you can replace it later."
        >
          <Input
            id="sso-client-secret"
            type="password"
            autoComplete="new-password"
            {...form.register("client_secret", { setValueAs: (v: string) => (v.trim() === "" ? undefined : v) })}
          />
        </Field>
        <Field label="Email domains" htmlFor="sso-domains" error={sentence(draftError ?? domainsError(errors.email_domains))} hint="Press Enter, comma or space after each domain.">
          <DomainTagsInput
            id="sso-domains"
            value={domains.field.value as string[]}
            onChange={(next) => domains.field.onChange(next)}
            onBlur={domains.field.onBlur}
            onDraftError={setDraftError}
          />
        </Field>
        <FormError error={create.error} />
        <FormDialogFooter
          onCancel={() => {
            flow.setOpen(false);
            dismiss();
          }}
          pending={create.isPending}
          submitLabel="Add provider" pendingLabel="Adding…" />
      </form>
    </CreateDialog>
  );
}
