"use client";

import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Switch } from "@/components/ui/switch";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { QueryState } from "@/components/ui/query-state";
import type { MfaMethod } from "@/lib/contract/mfa";
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
/** `remote`: this console reaches a remote gateway, and so cannot ask for a second factor (README, "Multi-factor authentication"). */
export function MfaSettings({ orgId, remote = false }: { orgId: string; remote?: boolean }) {
  const mfa = useQuery(mfaQueries.get(orgId));
  const access = useOrgAccess(orgId);
  const canManage = access.can("mfa.manage");
  const reason = canManage ? undefined : missingPermission("mfa.manage");
  const [change, setChange] = useState<Change | null>(null);
  const queryClient = useQueryClient();
  const update = useGatewayMutation<Change, GetOrgMfaResponse>({
    // The PATCH restates every required method: built from what the gateway holds now, not from the page, so a method
    // another admin required or dropped meanwhile is kept as they left it.
    request: async (c) => {
      const now = new Set((await freshMfa(queryClient, orgId)).mfa_methods.map((m) => m.method));
      const intended_methods = MFA_METHODS.filter((m) => (m === c.method ? c.require : now.has(m)));
      return { method: "PATCH", path: securityPaths.mfa(orgId), body: { intended_methods } };
    },
    // The entity listing carries the methods too.
    invalidate: () => [securityKeys.mfa(orgId), orgKeys.entities()],
    success: (_r, c) => (c.require ? `${METHODS[c.method].short} is now required` : `${METHODS[c.method].short} is no longer required`),
    onSuccess: () => setChange(null),
  });

  const required = new Map((mfa.data?.mfa_methods ?? []).map((m) => [m.method, m.created_at]));
  const confirm = () => {
    if (change) update.mutate(change);
  };
  const info = change ? METHODS[change.method] : undefined;
  const enrollment = mfa.data?.enrollment;
  // Requiring a method while none is required: everyone without that method is asked to enrol.
  const toEnrol = change?.require && enrollment ? enrollment.people - (required.size > 0 ? enrollment.any : enrollment[change.method]) : null;

  return (
    <div className="space-y-4">
      {access.ready && !canManage ? <PermissionNote id="mfa-permission" what="the MFA requirements" permission="mfa.manage" /> : null}
      {remote ? (
        <p role="note" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          This console reaches a remote gateway and cannot ask for a second factor: while the organization requires one, its members cannot sign in here.
        </p>
      ) : null}
      <QueryState state={mfa} what="MFA enrolment" label="MFA enrolment" lines={1}>
        {(data) => <EnrollmentCard orgId={orgId} data={data} canManage={canManage} reason={reason} />}
      </QueryState>
      <Card>
        <CardHeader
          title="Required MFA methods"
          description="Second factors every member of the organization must use to sign in to the console. Any one of the required methods will do."
        />
        <QueryState state={mfa} what="the MFA requirements" label="MFA methods" lines={2}>
          {() => (
            <CardBody>
              <ul className="divide-y divide-slate-100 dark:divide-slate-800">
                {MFA_METHODS.map((method) => (
                  <MethodRow
                    key={method}
                    method={method}
                    since={required.get(method)}
                    canManage={canManage}
                    // The gateway lets only an owner stop requiring MFA altogether (the owners would sign in with their key alone).
                    ownerOnly={access.ready && !access.isOwner && required.size === 1 && required.has(method)}
                    reason={reason}
                    pending={update.isPending}
                    onChange={setChange}
                  />
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
          <>
            <p>
              Members will be asked to enroll: the next time they sign in, everyone who has not yet done so must {info?.enroll} before they can continue.
            </p>
            {toEnrol !== null ? (
              <p className="mt-2 font-medium">
                {toEnrol === 0 ? "Everyone has already enrolled." : `${toEnrol} of ${enrollment?.people} people will be asked to enroll.`}
              </p>
            ) : null}
          </>
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
  ownerOnly,
  reason,
  pending,
  onChange,
}: {
  method: (typeof MFA_METHODS)[number];
  since: string | undefined;
  canManage: boolean;
  /** The last method required, which only an owner may stop requiring. */
  ownerOnly: boolean;
  reason: string | undefined;
  pending: boolean;
  onChange: (change: Change) => void;
}) {
  const labelId = `mfa-${method}-label`;
  const stateId = `mfa-${method}-state`;
  const ownerId = `mfa-${method}-owner-only`;
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
        {canManage && ownerOnly ? (
          <p id={ownerId} className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            {OWNER_ONLY}
          </p>
        ) : null}
      </div>
      <Switch
        checked={since !== undefined}
        disabled={!canManage || ownerOnly || pending}
        title={reason ?? (ownerOnly ? OWNER_ONLY : undefined)}
        aria-labelledby={labelId}
        aria-describedby={!canManage ? `${stateId} mfa-permission` : ownerOnly ? `${stateId} ${ownerId}` : stateId}
        onCheckedChange={(checked) => onChange({ method, require: checked })}
        className="relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:opacity-50 data-[state=checked]:bg-brand-600 dark:bg-slate-700 dark:focus-visible:ring-offset-slate-950 dark:data-[state=checked]:bg-brand-500"
        thumbClassName="size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px]"
      />
    </li>
  );
}

const OWNER_ONLY = "Only an owner of the organization can stop requiring MFA: the owners would sign in with their API key alone.";

const MAX_GRACE = 90;

/** The organization's MFA settings read from the gateway now (and cached), whatever the page was given. */
const freshMfa = (queryClient: QueryClient, orgId: string) => queryClient.fetchQuery({ ...mfaQueries.get(orgId), staleTime: 0 });

/** Who has enrolled what (before a requirement is turned on), and how long enrolment may wait. */
function EnrollmentCard({ orgId, data, canManage, reason }: { orgId: string; data: GetOrgMfaResponse; canManage: boolean; reason: string | undefined }) {
  const { enrollment } = data;
  const [days, setDays] = useState(String(data.enrollment_grace_days));
  const [error, setError] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const save = useGatewayMutation<{ days: number }, GetOrgMfaResponse>({
    // The required methods as the gateway holds them now (the PATCH restates them): not the page's, perhaps stale.
    request: async ({ days }) => ({
      method: "PATCH",
      path: securityPaths.mfa(orgId),
      body: { intended_methods: (await freshMfa(queryClient, orgId)).mfa_methods.map((m) => m.method), enrollment_grace_days: days },
    }),
    invalidate: () => [securityKeys.mfa(orgId)],
    success: (_r, { days }) => (days === 0 ? "Enrolment can no longer wait" : `Enrolment may wait ${days} ${days === 1 ? "day" : "days"}`),
  });
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const value = Number(days);
    if (!/^\d+$/.test(days.trim()) || value > MAX_GRACE) return setError(`Enter a whole number of days from 0 to ${MAX_GRACE}`);
    setError(null);
    save.mutate({ days: value });
  };
  const pct = (n: number) => (enrollment.people === 0 ? 0 : Math.round((100 * n) / enrollment.people));
  return (
    <Card>
      <CardHeader title="Enrolment" description="How many active people of the organization have set up a second factor." />
      <CardBody>
        <dl className="grid gap-4 sm:grid-cols-3" data-testid="mfa-enrollment">
          <div>
            <dt className="text-sm text-slate-600 dark:text-slate-400">Any second factor</dt>
            <dd className="text-lg font-semibold">
              {enrollment.any} of {enrollment.people} people <span className="text-sm font-normal text-slate-500 dark:text-slate-400">({pct(enrollment.any)}%)</span>
            </dd>
          </div>
          <div>
            <dt className="text-sm text-slate-600 dark:text-slate-400">Authenticator app</dt>
            <dd className="text-lg font-semibold">{enrollment.totp}</dd>
          </div>
          <div>
            <dt className="text-sm text-slate-600 dark:text-slate-400">Passkey or security key</dt>
            <dd className="text-lg font-semibold">{enrollment.webauthn}</dd>
          </div>
        </dl>
        <form onSubmit={submit} noValidate className="mt-6 flex flex-wrap items-end gap-3 border-t border-slate-100 pt-4 dark:border-slate-800">
          <Field
            label="Enrolment grace period (days)"
            htmlFor="mfa-grace-days"
            hint="From when MFA is first required, people without a required method may sign in and set one up later for this long. 0: at their next sign-in."
            error={error ?? undefined}
            className="max-w-md flex-1"
          >
            <Input id="mfa-grace-days" inputMode="numeric" value={days} disabled={!canManage} title={reason} onChange={(e) => setDays(e.target.value)} className="max-w-32" />
          </Field>
          <Button type="submit" variant="secondary" disabled={!canManage || save.isPending} title={reason}>
            Save
          </Button>
        </form>
      </CardBody>
    </Card>
  );
}
