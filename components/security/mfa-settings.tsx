"use client";

import { useQuery } from "@tanstack/react-query";
import { Switch } from "radix-ui";
import { useState } from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { QueryState } from "@/components/ui/query-state";
import type { EditOrgMfaRequest, MfaMethod } from "@/lib/contract/mfa";
import { MFA_METHODS } from "@/lib/contract/constants";
import { orgKeys, securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { mfaQueries, securityPaths, type GetOrgMfaResponse } from "@/lib/query/security";
import { missingPermission, useOrgAccess } from "@/components/common/use-org";
import { DateText } from "@/components/common/dates";
import { PermissionNote } from "./permission-note";

const METHODS: Record<MfaMethod, { name: string; short: string; description: string; enroll: string }> = {
  totp: {
    name: "Authenticator app (TOTP)",
    short: "TOTP",
    description: "Six-digit codes from an app such as a password manager or authenticator.",
    enroll: "set up an authenticator app",
  },
  webauthn: {
    name: "Security key or passkey (WebAuthn)",
    short: "WebAuthn",
    description: "A hardware security key or a passkey on the member's device.",
    enroll: "register a security key or passkey",
  },
};

interface Change {
  method: MfaMethod;
  require: boolean;
}

/** The organization's required MFA methods, each a switch that asks before it changes anything. */
export function MfaSettings({ orgId }: { orgId: string }) {
  const mfa = useQuery(mfaQueries.get(orgId));
  const access = useOrgAccess(orgId);
  const canManage = access.can("mfa.manage");
  const reason = canManage ? undefined : missingPermission("mfa.manage");
  const [change, setChange] = useState<Change | null>(null);
  const update = useGatewayMutation<EditOrgMfaRequest & Change, GetOrgMfaResponse>({
    request: ({ intended_methods }) => ({ method: "PATCH", path: securityPaths.mfa(orgId), body: { intended_methods } }),
    // The entity listing carries the methods too.
    invalidate: () => [securityKeys.mfa(orgId), orgKeys.entities()],
    success: (_r, c) => (c.require ? `${METHODS[c.method].short} is now required` : `${METHODS[c.method].short} is no longer required`),
    onSuccess: () => setChange(null),
  });

  const required = new Map((mfa.data?.mfa_methods ?? []).map((m) => [m.method, m.created_at]));
  const confirm = () => {
    if (!change) return;
    const next = MFA_METHODS.filter((m) => (m === change.method ? change.require : required.has(m)));
    update.mutate({ ...change, intended_methods: next });
  };
  const info = change ? METHODS[change.method] : undefined;

  return (
    <div className="space-y-4">
      {access.ready && !canManage ? <PermissionNote id="mfa-permission" what="the MFA requirements" permission="mfa.manage" /> : null}
      <Card>
        <CardHeader title="Required MFA methods" description="Second factors every member of the organization must use to sign in." />
        <QueryState state={mfa} what="the MFA requirements" label="MFA methods" lines={2}>
          {() => (
            <CardBody>
              <ul className="divide-y divide-slate-100 dark:divide-slate-800">
                {MFA_METHODS.map((method) => (
                  <MethodRow key={method} method={method} since={required.get(method)} canManage={canManage} reason={reason} pending={update.isPending} onChange={setChange} />
                ))}
              </ul>
            </CardBody>
          )}
        </QueryState>
      </Card>
      <ConfirmDialog
        open={change !== null}
        onOpenChange={(open) => {
          if (!open) setChange(null);
        }}
        title={change?.require ? `Require ${info?.short}?` : `Stop requiring ${info?.short}?`}
        confirmLabel={change?.require ? `Require ${info?.short}` : `Stop requiring ${info?.short}`}
        tone={change?.require ? "primary" : "danger"}
        pending={update.isPending}
        onConfirm={confirm}
      >
        {change?.require ? (
          <p>
            Members will be asked to enroll: the next time they sign in, everyone who has not yet done so must {info?.enroll} before they can continue.
          </p>
        ) : (
          <p>
            Members will no longer be asked for {info?.short} when they sign in. Sign-in gets weaker unless another method is still required.
          </p>
        )}
      </ConfirmDialog>
    </div>
  );
}

/** One method: what it is, since when it is required, and the switch that asks to change that. */
function MethodRow({
  method,
  since,
  canManage,
  reason,
  pending,
  onChange,
}: {
  method: (typeof MFA_METHODS)[number];
  since: string | undefined;
  canManage: boolean;
  reason: string | undefined;
  pending: boolean;
  onChange: (change: Change) => void;
}) {
  const labelId = `mfa-${method}-label`;
  const stateId = `mfa-${method}-state`;
  return (
    <li className="flex items-center justify-between gap-4 py-3 first:pt-0 last:pb-0" data-testid={`mfa-${method}`}>
      <div className="min-w-0">
        <p id={labelId} className="text-sm font-medium">
          {METHODS[method].name}
        </p>
        <p className="text-sm text-slate-500 dark:text-slate-400">{METHODS[method].description}</p>
        <p id={stateId} className="mt-1 text-xs">
          {since ? (
            <span className="text-emerald-700 dark:text-emerald-400">
              Required since <DateText value={since} />
            </span>
          ) : (
            <span className="text-slate-500 dark:text-slate-400">Not required</span>
          )}
        </p>
      </div>
      <Switch.Root
        checked={since !== undefined}
        disabled={!canManage || pending}
        title={reason}
        aria-labelledby={labelId}
        aria-describedby={canManage ? stateId : `${stateId} mfa-permission`}
        onCheckedChange={(checked) => onChange({ method, require: checked })}
        className="relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:opacity-50 data-[state=checked]:bg-brand-600 dark:bg-slate-700 dark:focus-visible:ring-offset-slate-950 dark:data-[state=checked]:bg-brand-500"
      >
        <Switch.Thumb className="pointer-events-none block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px]" />
      </Switch.Root>
    </li>
  );
}
