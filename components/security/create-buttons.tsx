"use client";

import { Button } from "@/components/ui/button";
import type { TriggerHandlers } from "@/components/ui/on-first-use";
import { lazyDialog } from "@/components/common/lazy";
import type { SsoProvider } from "@/lib/contract/sso";

/**
 * The security pages' "create" buttons; their dialogs' forms (react-hook-form,
 * the contract's zod schemas) are fetched on the first click. A button the
 * caller may not use is rendered disabled, with its reason, as the dialog's own.
 */
const ScimIntegrationDialog = lazyDialog(() => import("./scim-create-dialog").then((m) => m.CreateScimIntegrationDialog));
const SsoProviderDialog = lazyDialog(() => import("./sso-create-dialog").then((m) => m.CreateSsoProviderDialog));
const ScimTokenDialog = lazyDialog(() => import("./scim-token-create").then((m) => m.CreateScimTokenDialog));
const SsoSecretDialog = lazyDialog(() => import("./sso-secret-dialog").then((m) => m.ReplaceSsoSecretDialog));

function triggerFor(label: string, describedBy: string, disabledReason: string | undefined) {
  return function trigger(handlers: TriggerHandlers) {
    return (
      <Button disabled={disabledReason !== undefined} title={disabledReason} aria-describedby={disabledReason ? describedBy : undefined} {...handlers}>
        {label}
      </Button>
    );
  };
}

export function CreateScimIntegrationButton({ orgId, disabledReason }: { orgId: string; disabledReason?: string }) {
  const trigger = triggerFor("New integration", "scim-permission", disabledReason);
  return <ScimIntegrationDialog trigger={trigger} disabled={disabledReason !== undefined} orgId={orgId} />;
}

export function CreateSsoProviderButton({ orgId, disabledReason }: { orgId: string; disabledReason?: string }) {
  const trigger = triggerFor("Add provider", "sso-permission", disabledReason);
  return <SsoProviderDialog trigger={trigger} disabled={disabledReason !== undefined} orgId={orgId} />;
}

export function CreateScimTokenButton({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const trigger = triggerFor("New token", "scim-permission", disabledReason);
  return <ScimTokenDialog trigger={trigger} disabled={disabledReason !== undefined} orgId={orgId} integrationId={integrationId} />;
}

export function ReplaceSsoSecretButton({ orgId, provider, disabledReason }: { orgId: string; provider: SsoProvider; disabledReason?: string }) {
  const label = provider.has_client_secret ? "Replace secret" : "Add secret";
  const trigger = (handlers: TriggerHandlers) => (
    <Button
      variant="secondary"
      size="sm"
      disabled={disabledReason !== undefined}
      title={disabledReason}
      aria-label={`${label} of ${provider.issuer_uri}`}
      aria-describedby={disabledReason ? "sso-permission" : undefined}
      {...handlers}
    >
      {label}
    </Button>
  );
  return <SsoSecretDialog trigger={trigger} disabled={disabledReason !== undefined} orgId={orgId} provider={provider} />;
}
