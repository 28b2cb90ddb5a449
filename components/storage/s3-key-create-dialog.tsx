"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { CreateDialog, useCreateDialog, type OneTimeSecret } from "@/components/common/create-dialog";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";
import { endOfDayUtc, ExpiryField } from "@/components/common/expiry-field";
import { optionalExpiryDateSchema } from "@/components/common/expiry-schema";
import type { createS3KeyResponseSchema, CreateS3KeyRequest } from "@/lib/contract/s3";
import { createS3KeyRequestSchema } from "@/lib/contract/s3";
import { storageKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { storagePaths } from "@/lib/query/storage";
import type { S3Connection } from "./s3-connection";

type CreateS3KeyResponse = z.infer<typeof createS3KeyResponseSchema>;

const formSchema = z.object({
  alias: createS3KeyRequestSchema.shape.alias.unwrap(),
  expires_on: optionalExpiryDateSchema,
});
type FormValues = z.input<typeof formSchema>;

/** "s3-key-ci-runner" from an alias, safe as a file name. */
function fileBase(alias: string | undefined, accessKeyId: string): string {
  const slug = (alias ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `s3-key-${slug || accessKeyId}`;
}

function s3KeySecret(key: CreateS3KeyResponse, alias: string | undefined, connection: S3Connection): OneTimeSecret {
  return {
    title: alias ? `S3 key ${alias} created` : "S3 key created",
    fileBase: fileBase(alias, key.access_key_id),
    fields: [
      { label: "Access key ID", envName: "AWS_ACCESS_KEY_ID", value: key.access_key_id },
      { label: "Secret access key", envName: "AWS_SECRET_ACCESS_KEY", value: key.secret_key, secret: true },
      // The names the AWS SDKs and CLI read (AWS_ENDPOINT_URL since CLI v2.13).
      { label: "Endpoint", envName: "AWS_ENDPOINT_URL", value: connection.endpoint },
      { label: "Region", envName: "AWS_REGION", value: connection.region },
    ],
  };
}

/** "New key": alias and optional expiry; the secret is shown once, then only its access key id remains. */
export function CreateS3KeyDialog({ orgId, connection, defaultOpen = false }: { orgId: string; connection: S3Connection; defaultOpen?: boolean }) {
  const flow = useCreateDialog(defaultOpen);
  const form = useForm<FormValues, unknown, z.output<typeof formSchema>>({
    resolver: zodResolver(formSchema),
    defaultValues: { alias: "", expires_on: "" },
    mode: "onTouched",
  });
  const create = useGatewayMutation<CreateS3KeyRequest, CreateS3KeyResponse>({
    holdsSecret: true,
    request: (body) => ({ method: "POST", path: storagePaths.s3Keys(orgId), body }),
    invalidate: () => [storageKeys.s3Keys(orgId)],
    success: () => "S3 key created",
    onSuccess: (result, vars) => {
      flow.showSecret(s3KeySecret(result, vars.alias, connection));
      form.reset();
    },
  });
  const submit = form.handleSubmit((values) => {
    const body: CreateS3KeyRequest = {
      ...(values.alias ? { alias: values.alias } : {}),
      ...(values.expires_on ? { expire_at: endOfDayUtc(values.expires_on) } : {}),
    };
    create.mutate(body, { onError: (error) => applyGatewayErrors(error, form.setError, { alias: "alias", expire_at: "expires_on" }) });
  });
  const { errors } = form.formState;
  return (
    <CreateDialog
      flow={flow}
      label="New key"
      onOpen={() => create.reset()}
      title="New S3 access key"
      description="The key acts as you: it can reach what you can reach in this organization's object storage."
      onSecretClosed={() => create.reset()}
    >
      <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
        <Field label="Alias" htmlFor="s3-alias" error={sentence(errors.alias?.message)} hint="Optional: a name that says where the key is used, e.g. ci-runner.">
          <Input id="s3-alias" autoComplete="off" {...form.register("alias")} />
        </Field>
        <ExpiryField
          id="s3-expiry"
          label="Expires on"
          optional
          error={errors.expires_on?.message}
          input={form.register("expires_on")}
          onPick={(d) => form.setValue("expires_on", d, { shouldValidate: true, shouldDirty: true })}
        />
        <FormError error={create.error} />
        <FormDialogFooter onCancel={() => flow.setOpen(false)} pending={create.isPending} submitLabel="Create key" pendingLabel="Creating…" />
      </form>
    </CreateDialog>
  );
}
