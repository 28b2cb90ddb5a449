"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, useWatch, type UseFormReturn } from "react-hook-form";
import { z } from "zod";
import { FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { CreateDialog, useCreateDialog } from "@/components/common/create-dialog";
import { createScimIntegrationRequestSchema, type createScimIntegrationResponseSchema } from "@/lib/contract/scim";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { securityPaths } from "@/lib/query/security";
import { dateFromToday, endOfDayUtc, ExpiryField } from "@/components/common/expiry-field";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";
import { scimTokenSecret } from "./scim-token-file";
import { scimTokenFormSchema } from "./scim-token-form";

type CreateBody = z.input<typeof createScimIntegrationRequestSchema>;
type CreateResponse = z.infer<typeof createScimIntegrationResponseSchema>;

const IDENTITY_PROVIDERS = ["okta", "azure-ad", "google-workspace", "onelogin", "jumpcloud", "ping-identity"];

const formSchema = z
  .object({
    name: createScimIntegrationRequestSchema.shape.name,
    identity_provider: createScimIntegrationRequestSchema.shape.identity_provider,
    with_token: z.boolean(),
    token_alias: z.string(),
    token_expires_on: z.string(),
  })
  .superRefine((v, ctx) => {
    if (!v.with_token) return;
    const token = scimTokenFormSchema.safeParse({ alias: v.token_alias, expires_on: v.token_expires_on });
    for (const issue of token.error?.issues ?? []) {
      ctx.addIssue({ code: "custom", path: [issue.path[0] === "alias" ? "token_alias" : "token_expires_on"], message: issue.message });
    }
  });
type FormValues = z.input<typeof formSchema>;

const defaults = (): FormValues => ({ name: "", identity_provider: "", with_token: true, token_alias: "", token_expires_on: dateFromToday(90) });

/** The body's field paths, as the gateway names them in a 400, mapped to the form's fields. */
const ERROR_FIELDS = {
  name: "name",
  identity_provider: "identity_provider",
  "token.alias": "token_alias",
  "token.expires_at": "token_expires_on",
} as const;

/** "New integration": name, identity provider and, usually, a first token whose secret is shown once. */
export function CreateScimIntegrationDialog({ orgId, disabledReason, defaultOpen = false }: { orgId: string; disabledReason?: string; defaultOpen?: boolean }) {
  const flow = useCreateDialog(defaultOpen);
  const form = useForm<FormValues, unknown, z.output<typeof formSchema>>({ resolver: zodResolver(formSchema), defaultValues: defaults(), mode: "onTouched" });
  const create = useGatewayMutation<CreateBody, CreateResponse>({
    holdsSecret: true,
    request: (body) => ({ method: "POST", path: securityPaths.scimIntegrations(orgId), body }),
    invalidate: () => [securityKeys.scimIntegrations(orgId)],
    success: (r) => `SCIM integration ${r.integration.name} created`,
    onSuccess: (r) => {
      flow.setOpen(false);
      form.reset(defaults());
      if (r.api_key_info) flow.showSecret(scimTokenSecret(`Token for ${r.integration.name}`, r.api_key_info));
    },
  });
  const submit = form.handleSubmit((v) => {
    const body: CreateBody = {
      name: v.name,
      identity_provider: v.identity_provider,
      ...(v.with_token ? { token: { alias: v.token_alias, expires_at: endOfDayUtc(v.token_expires_on) } } : {}),
    };
    create.mutate(body, { onError: (error) => applyGatewayErrors(error, form.setError, ERROR_FIELDS) });
  });
  return (
    <CreateDialog
      flow={flow}
      label="New integration"
      disabledReason={disabledReason}
      reasonId="scim-permission"
      onOpen={() => create.reset()}
      title="New SCIM integration"
      description="Lets an identity provider create, update and deactivate this organization's users."
      onSecretClosed={() => create.reset()}
    >
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
        <ScimIntegrationFields form={form} />
        <FormError error={create.error} />
        <FormDialogFooter onCancel={() => flow.setOpen(false)} pending={create.isPending} submitLabel="Create integration" pendingLabel="Creating…" />
      </form>
    </CreateDialog>
  );
}

function ScimIntegrationFields({ form }: { form: UseFormReturn<FormValues, unknown, z.output<typeof formSchema>> }) {
  const { errors } = form.formState;
  const withToken = useWatch({ control: form.control, name: "with_token" });
  return (
    <>
      <Field label="Name" htmlFor="scim-name" error={sentence(errors.name?.message)}>
        <Input id="scim-name" autoComplete="off" {...form.register("name")} />
      </Field>
      <Field label="Identity provider" htmlFor="scim-idp" error={sentence(errors.identity_provider?.message)} hint="Pick one or type another.">
        <Input id="scim-idp" list="scim-idp-options" autoComplete="off" {...form.register("identity_provider")} />
      </Field>
      <datalist id="scim-idp-options">
        {IDENTITY_PROVIDERS.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <fieldset className="space-y-4 rounded-md border border-slate-200 p-3 dark:border-slate-700">
        <legend className="px-1 text-sm font-medium">First token</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4" {...form.register("with_token")} />
          Create a token now (the identity provider needs one to connect)
        </label>
        {withToken ? (
          <>
            <Field label="Token alias" htmlFor="scim-token-alias" error={sentence(errors.token_alias?.message)} hint="e.g. okta-2025">
              <Input id="scim-token-alias" autoComplete="off" {...form.register("token_alias")} />
            </Field>
            <ExpiryField
              id="scim-token-expiry"
              label="Token expires on"
              error={errors.token_expires_on?.message}
              input={form.register("token_expires_on")}
              onPick={(d) => form.setValue("token_expires_on", d, { shouldValidate: true, shouldDirty: true })}
            />
          </>
        ) : null}
      </fieldset>
    </>
  );
}
