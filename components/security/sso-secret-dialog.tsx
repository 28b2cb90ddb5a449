"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, FormDialogFooter } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { applyGatewayErrors, FormError, sentence } from "@/components/common/form-errors";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { replaceSsoClientSecretSchema, type SsoProvider } from "@/lib/contract/sso";
import { securityKeys } from "@/lib/query/keys";
import { securityPaths } from "@/lib/query/security";
import type { z } from "zod";

type FormValues = z.infer<typeof replaceSsoClientSecretSchema>;

/** Sets or replaces a provider's client secret (updateSSOProvider); the secret is write-only and never shown again. */
export function ReplaceSsoSecretDialog({ orgId, provider, defaultOpen = false }: { orgId: string; provider: SsoProvider; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const form = useForm<FormValues>({ resolver: zodResolver(replaceSsoClientSecretSchema), defaultValues: { client_secret: "" }, mode: "onTouched" });
  const update = useGatewayMutation<FormValues, SsoProvider>({
    // The client secret typed is among its variables.
    holdsSecret: true,
    request: (body) => ({ method: "PATCH", path: securityPaths.ssoProvider(orgId, provider.id), body }),
    invalidate: () => [securityKeys.ssoProviders(orgId)],
    success: () => `Client secret ${provider.has_client_secret ? "replaced" : "saved"}`,
    onSuccess: () => {
      setOpen(false);
      form.reset();
      // Let go of the mutation, the secret among its variables, once its call has settled: it leaves the cache then.
      setTimeout(() => update.reset());
    },
  });
  // However it closes (Cancel, Escape, a click outside), the typed secret and the mutation holding it are let go.
  const close = () => {
    setOpen(false);
    form.reset();
    update.reset();
  };
  const submit = form.handleSubmit((body) => update.mutate(body, { onError: (error) => applyGatewayErrors(error, form.setError, { client_secret: "client_secret" }) }));
  const label = provider.has_client_secret ? "Replace secret" : "Add secret";
  return (
    <>
      <Button type="button" variant="secondary" size="sm" aria-label={`${label} of ${provider.issuer_uri}`} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Dialog
        open={open}
        onOpenChange={(next) => (next ? setOpen(true) : close())}
      >
        <DialogContent
          title={provider.has_client_secret ? "Replace the client secret" : "Add the client secret"}
          description="The secret the provider issued for this console's application. It is stored encrypted and never shown again."
        >
          <form onSubmit={(e) => void submit(e)} noValidate className="space-y-4">
            <Field label="Client secret" htmlFor="sso-new-secret" error={sentence(form.formState.errors.client_secret?.message)}>
              <Input id="sso-new-secret" type="password" autoComplete="new-password" autoFocus {...form.register("client_secret")} />
            </Field>
            <FormError error={update.error} />
            <FormDialogFooter onCancel={close} pending={update.isPending} submitLabel="Save secret" pendingLabel="Saving…" />
          </form>
        </DialogContent>
      </Dialog>
    </>
  );
}
