"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { CreateDialog, useCreateDialog } from "@/components/common/create-dialog";
import type { createScimTokenRequestSchema, limitedUsageApiKeyPostResponseSchema } from "@/lib/contract/scim";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { securityPaths } from "@/lib/query/security";
import { dateFromToday, endOfDayUtc, ExpiryField } from "@/components/common/expiry-field";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";
import { scimTokenSecret } from "./scim-token-file";
import { scimTokenFormSchema } from "./scim-token-form";

type CreateTokenBody = z.input<typeof createScimTokenRequestSchema>;
type CreateTokenResponse = z.infer<typeof limitedUsageApiKeyPostResponseSchema>;
type FormValues = z.input<typeof scimTokenFormSchema>;
type FormOutput = z.output<typeof scimTokenFormSchema>;

const defaults = (): FormValues => ({ alias: "", expires_on: dateFromToday(90) });

/** "New token" and its dialog, open from the start: it is mounted by the button's first click. */
export function CreateScimTokenDialog({ orgId, integrationId, defaultOpen = false }: { orgId: string; integrationId: string; defaultOpen?: boolean }) {
  const flow = useCreateDialog(defaultOpen);
  const form = useForm<FormValues, unknown, FormOutput>({ resolver: zodResolver(scimTokenFormSchema), defaultValues: defaults(), mode: "onTouched" });
  const create = useGatewayMutation<CreateTokenBody, CreateTokenResponse>({
    holdsSecret: true,
    request: (body) => ({ method: "POST", path: securityPaths.scimTokens(orgId, integrationId), body }),
    invalidate: () => [securityKeys.scimIntegration(orgId, integrationId), securityKeys.scimIntegrations(orgId)],
    success: (r) => `Token ${r.api_key_info.alias} created`,
    onSuccess: (r) => {
      form.reset(defaults());
      flow.showSecret(scimTokenSecret(`Token ${r.api_key_info.alias} created`, r.api_key_info));
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
    <CreateDialog
      flow={flow}
      label="New token"
      onOpen={() => create.reset()}
      title="New SCIM token"
      description="Give it to the identity provider. Keep the old token until the provider uses the new one, then delete the old one. The token is yours: it stops working if you leave the organization or are suspended there."
      onSecretClosed={() => create.reset()}
    >
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
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
        <FormDialogFooter onCancel={() => flow.setOpen(false)} pending={create.isPending} submitLabel="Create token" pendingLabel="Creating…" />
      </form>
    </CreateDialog>
  );
}
