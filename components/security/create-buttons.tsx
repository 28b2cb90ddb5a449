"use client";

import { lazy } from "react";
import { Button } from "@/components/ui/button";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";

/**
 * The security pages' "create" buttons; their dialogs' forms (react-hook-form,
 * the contract's zod schemas) are fetched on the first click. A button the
 * caller may not use is rendered disabled, with its reason, as the dialog's own.
 */
const loadScim = () => import("./scim-create-dialog");
const ScimDialog = lazy(() => loadScim().then((m) => ({ default: m.CreateScimIntegrationButton })));
const loadSso = () => import("./sso-create-dialog");
const SsoDialog = lazy(() => loadSso().then((m) => ({ default: m.CreateSsoProviderButton })));
const loadScimToken = () => import("./scim-token-create");
const ScimTokenDialog = lazy(() => loadScimToken().then((m) => ({ default: m.CreateScimTokenButton })));

function triggerFor(label: string, describedBy: string, disabledReason: string | undefined) {
  return function trigger(handlers: TriggerHandlers) {
    return (
      <Button disabled={disabledReason !== undefined} title={disabledReason} aria-describedby={disabledReason ? describedBy : undefined} {...handlers}>
        {label}
      </Button>
    );
  };
}

export function NewScimIntegrationButton({ orgId, disabledReason }: { orgId: string; disabledReason?: string }) {
  const trigger = triggerFor("New integration", "scim-permission", disabledReason);
  if (disabledReason !== undefined) return trigger({});
  return <OnFirstUse trigger={trigger} preload={loadScim} menu={<ScimDialog orgId={orgId} defaultOpen />} />;
}

export function NewSsoProviderButton({ orgId, disabledReason }: { orgId: string; disabledReason?: string }) {
  const trigger = triggerFor("Add provider", "sso-permission", disabledReason);
  if (disabledReason !== undefined) return trigger({});
  return <OnFirstUse trigger={trigger} preload={loadSso} menu={<SsoDialog orgId={orgId} defaultOpen />} />;
}

export function NewScimTokenButton({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const trigger = triggerFor("New token", "scim-permission", disabledReason);
  if (disabledReason !== undefined) return trigger({});
  return <OnFirstUse trigger={trigger} preload={loadScimToken} menu={<ScimTokenDialog orgId={orgId} integrationId={integrationId} defaultOpen />} />;
}
