"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { FormDialogFooter } from "@/components/ui/dialog";
// This module is itself loaded on first use: Radix directly, with no second fetch on opening.
import { DialogContent, DialogRoot as Dialog } from "@/components/ui/dialog-parts";
import { Field, Input } from "@/components/ui/field";
import { SecretDialog } from "@/components/common/secret-dialog";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";
import { endOfDayUtc, ExpiryField } from "@/components/common/expiry-field";
import { optionalExpiryDateSchema } from "@/components/common/expiry-schema";
import type { createS3KeyResponseSchema, CreateS3KeyRequest } from "@/lib/contract/s3";
import { createS3KeyRequestSchema } from "@/lib/contract/s3";
import { storageKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { storagePaths } from "@/lib/query/storage";

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

/** "New key": alias and optional expiry; the secret is shown once, then only its access key id remains. */
export function CreateS3KeyButton({ orgId, defaultOpen = false }: { orgId: string; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  // The one-time secret lives only here, in memory, until the user confirms they saved it.
  const [secret, setSecret] = useState<(CreateS3KeyResponse & { alias?: string }) | null>(null);
  const form = useForm<FormValues, unknown, z.output<typeof formSchema>>({
    resolver: zodResolver(formSchema),
    defaultValues: { alias: "", expires_on: "" },
    mode: "onTouched",
  });
  const create = useGatewayMutation<CreateS3KeyRequest, CreateS3KeyResponse>({
    request: (body) => ({ method: "POST", path: storagePaths.s3Keys(orgId), body }),
    invalidate: () => [storageKeys.s3Keys(orgId)],
    success: () => "S3 key created",
    onSuccess: (result, vars) => {
      setSecret({ ...result, alias: vars.alias });
      setOpen(false);
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
    <>
      <Button
        onClick={() => {
          create.reset();
          setOpen(true);
        }}
      >
        New key
      </Button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent title="New S3 access key" description="The key acts as you: it can reach what you can reach in this organization's object storage.">
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
            <FormDialogFooter onCancel={() => setOpen(false)} pending={create.isPending} submitLabel="Create key" pendingLabel="Creating…" />
          </form>
        </DialogContent>
      </Dialog>
      <SecretDialog
        open={secret !== null}
        title={secret?.alias ? `S3 key ${secret.alias} created` : "S3 key created"}
        fileBase={secret ? fileBase(secret.alias, secret.access_key_id) : "s3-key"}
        fields={
          secret
            ? [
                { label: "Access key ID", envName: "AWS_ACCESS_KEY_ID", value: secret.access_key_id },
                { label: "Secret access key", envName: "AWS_SECRET_ACCESS_KEY", value: secret.secret_key, secret: true },
              ]
            : []
        }
        onClose={() => {
          setSecret(null);
          // Drop the response (it holds the secret) from the mutation's state too.
          create.reset();
        }}
      />
    </>
  );
}
