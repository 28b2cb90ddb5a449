"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { ScimIntegration } from "@/lib/contract/scim";
import { iamKeys, peopleKeys, securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { securityPaths } from "@/lib/query/security";

interface Props {
  orgId: string;
  integration: ScimIntegration;
  /** Set when the caller may not manage SCIM: the buttons are disabled and say why. */
  disabledReason?: string;
  onDeleted?: () => void;
}

/** Activate/deactivate and delete one integration, each after a confirmation. */
export function ScimIntegrationActions({ orgId, integration, disabledReason, onDeleted }: Props) {
  const [dialog, setDialog] = useState<"status" | "delete" | null>(null);
  const active = integration.status === "active";
  const tokens = integration.token_ids.length;
  const setStatus = useGatewayMutation<{ status: "active" | "inactive" }>({
    request: (body) => ({ method: "PATCH", path: securityPaths.scimIntegration(orgId, integration.id), body }),
    invalidate: () => [securityKeys.scimIntegrations(orgId)],
    success: (_r, body) => `${integration.name} is now ${body.status}`,
    onSuccess: () => setDialog(null),
  });
  const remove = useGatewayMutation<void>({
    request: () => ({ method: "DELETE", path: securityPaths.scimIntegration(orgId, integration.id) }),
    // The list alone of the integration's own queries (its page, still open, would ask again and get a 404); the role
    // bindings its group mappings granted went with it, so IAM and the people's roles too.
    invalidate: () => [{ exact: securityKeys.scimIntegrations(orgId) }, iamKeys.all, peopleKeys.org(orgId)],
    success: () => `SCIM integration ${integration.name} deleted`,
    onSuccess: () => {
      setDialog(null);
      onDeleted?.();
    },
  });
  const describedBy = disabledReason ? "scim-permission" : undefined;
  return (
    <div className="flex items-center gap-1">
      <Button
        variant="secondary"
        size="sm"
        disabled={disabledReason !== undefined}
        title={disabledReason}
        aria-describedby={describedBy}
        aria-label={`${active ? "Deactivate" : "Activate"} ${integration.name}`}
        onClick={() => setDialog("status")}
      >
        {active ? "Deactivate" : "Activate"}
      </Button>
      <Button
        variant="ghost-danger"
        size="sm"
        disabled={disabledReason !== undefined}
        title={disabledReason}
        aria-describedby={describedBy}
        aria-label={`Delete ${integration.name}`}
        onClick={() => setDialog("delete")}
      >
        Delete
      </Button>
      <ConfirmDialog
        open={dialog === "status"}
        onOpenChange={(open) => setDialog(open ? "status" : null)}
        title={active ? `Deactivate ${integration.name}?` : `Activate ${integration.name}?`}
        confirmLabel={active ? "Deactivate" : "Activate"}
        tone={active ? "danger" : "primary"}
        pending={setStatus.isPending}
        onConfirm={() => setStatus.mutate({ status: active ? "inactive" : "active" })}
      >
        {active ? (
          <p>
            While inactive, {integration.identity_provider} can no longer create, update or deactivate users through this integration. Its {tokens}{" "}
            {tokens === 1 ? "token stays" : "tokens stay"} and work again once you activate it.
          </p>
        ) : (
          <p>{integration.identity_provider} will again create, update and deactivate users through this integration, with its existing tokens.</p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === "delete"}
        onOpenChange={(open) => setDialog(open ? "delete" : null)}
        title={`Delete ${integration.name}?`}
        confirmLabel="Delete integration"
        typeToConfirm={integration.name}
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
      >
        <p>
          {integration.identity_provider} will no longer provision users into this organization through it. Its {tokens}{" "}
          {tokens === 1 ? "token is" : "tokens are"} deleted with it and stop working at once.
        </p>
        <p>
          Its groups go too, and with them every role binding its group mappings grant: their members lose those roles at once. The people it
          provisioned stay members of the organization.
        </p>
      </ConfirmDialog>
    </div>
  );
}
