"use client";

import { Fingerprint, KeyRound, Smartphone } from "lucide-react";
import { useRouter } from "next/navigation";
import { Suspense, useState } from "react";
import { toast } from "sonner";
import { DateText, RelativeTime } from "@/components/common/dates";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { newRecoveryCodesAction, removeFactorAction } from "@/lib/console/mfa-actions";
import type { FactorSummary } from "@/lib/console/mfa";
import { FACTORS_MANAGED_ELSEWHERE } from "@/lib/contract/sign-in-messages";
import { lazyComponent } from "@/components/common/lazy";
import { ConfirmItsYou } from "./confirm-its-you";
import type { Enrolled } from "./totp-enrolment";
import { reached } from "./reached";

// Shown only once asked for (adding a factor, new recovery codes): fetched then, not with the page.
const PasskeyRegistration = lazyComponent(() => import("./passkey-registration").then((m) => m.PasskeyRegistration));
const RecoveryCodes = lazyComponent(() => import("./recovery-codes").then((m) => m.RecoveryCodes));
const TotpEnrolmentPanel = lazyComponent(() => import("./totp-enrolment").then((m) => m.TotpEnrolmentPanel));

const FACTOR_NAMES: Record<string, string> = {
  api_key: "API key",
  sso: "Single sign-on",
  totp: "Authenticator app",
  webauthn: "Passkey or security key",
  recovery_code: "Recovery code",
  grace: "Second factor postponed (grace period)",
};

type Adding = "totp" | "webauthn" | null;

/**
 * The signed-in person's factors: add an app or a passkey, remove one, get new recovery codes.
 * `locked`: this session may only look (signed in through one organization's SSO, while the
 * factors serve other organizations of the account too; the server refuses the changes anyway).
 * `confirm`: this session must first answer with a factor the person has (ConfirmItsYou).
 */
export function AccountSecurity({
  own,
  sessionFactors,
  locked = false,
  confirm = false,
}: {
  own: { factors: FactorSummary[]; recoveryCodesLeft: number } | null;
  sessionFactors: string[];
  locked?: boolean;
  confirm?: boolean;
}) {
  const readOnly = locked || confirm;
  const router = useRouter();
  const [adding, setAdding] = useState<Adding>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [removing, setRemoving] = useState<FactorSummary | null>(null);
  const [renewingCodes, setRenewingCodes] = useState(false);
  const [busy, setBusy] = useState(false);

  const enrolled = (result: Enrolled) => {
    setAdding(null);
    toast.success("Second factor added");
    if (result.recoveryCodes) setCodes(result.recoveryCodes);
    router.refresh();
  };

  async function regenerate() {
    setBusy(true);
    const result = await reached(() => newRecoveryCodesAction());
    setBusy(false);
    setRenewingCodes(false);
    if (result.ok) {
      setCodes(result.recoveryCodes);
      router.refresh();
    } else toast.error(result.error);
  }

  async function remove() {
    if (!removing) return;
    setBusy(true);
    const result = await reached(() => removeFactorAction(removing.id));
    setBusy(false);
    if (!result.ok) return void toast.error(result.error);
    toast.success(`${removing.name} removed`);
    setRemoving(null);
    router.refresh();
  }

  return (
    <div className="space-y-6">
      <Card>
        <CardHeader title="This session" description="How you signed in this time." />
        <CardBody>
          <p className="text-sm" data-testid="session-factors">
            {sessionFactors.map((f) => FACTOR_NAMES[f] ?? f).join(" + ")}
          </p>
        </CardBody>
      </Card>

      {own === null ? (
        <Card>
          <CardBody>
            <p className="text-sm text-slate-600 dark:text-slate-400">Second factors are kept by the embedded gateway; this console talks to a remote one.</p>
          </CardBody>
        </Card>
      ) : codes ? (
        <Card>
          <CardBody>
            <Suspense fallback={null}>
              <RecoveryCodes codes={codes} continueLabel="Done" onContinue={() => setCodes(null)} />
            </Suspense>
          </CardBody>
        </Card>
      ) : (
        <>
          {confirm && !locked ? <ConfirmItsYou methods={[...new Set(own.factors.map((f) => f.method))]} recoveryCodesLeft={own.recoveryCodesLeft} /> : null}
          <Card>
            <CardHeader title="Second factors" description="Any of these proves it is you when an organization of yours requires MFA." />
            <CardBody>
              {locked ? (
                <p role="note" className="mb-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100">
                  {FACTORS_MANAGED_ELSEWHERE}.
                </p>
              ) : null}
              {own.factors.length === 0 ? (
                <p className="text-sm text-slate-600 dark:text-slate-400">You have not set up a second factor yet.</p>
              ) : (
                <ul aria-label="Your second factors" className="divide-y divide-slate-100 dark:divide-slate-800">
                  {own.factors.map((f) => (
                    <li key={f.id} className="flex items-center justify-between gap-4 py-3 first:pt-0 last:pb-0">
                      <div className="flex min-w-0 items-center gap-3">
                        {f.method === "totp" ? <Smartphone className="size-5 shrink-0 text-slate-500" aria-hidden /> : <Fingerprint className="size-5 shrink-0 text-slate-500" aria-hidden />}
                        <div className="min-w-0">
                          <p className="truncate text-sm font-medium">{f.name}</p>
                          <p className="text-xs text-slate-600 dark:text-slate-400">
                            Added <DateText value={f.createdAt} /> · last used {f.lastUsedAt ? <RelativeTime value={f.lastUsedAt} /> : "never"}
                          </p>
                        </div>
                      </div>
                      {readOnly ? null : (
                        <Button type="button" size="sm" variant="ghost-danger" aria-label={`Remove ${f.name}`} onClick={() => setRemoving(f)}>
                          Remove
                        </Button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
              <div hidden={readOnly} className="mt-4 flex flex-wrap gap-2 border-t border-slate-100 pt-4 dark:border-slate-800">
                <Button type="button" variant={adding === "totp" ? "primary" : "secondary"} size="sm" onClick={() => setAdding(adding === "totp" ? null : "totp")}>
                  <Smartphone aria-hidden /> Add an authenticator app
                </Button>
                <Button type="button" variant={adding === "webauthn" ? "primary" : "secondary"} size="sm" onClick={() => setAdding(adding === "webauthn" ? null : "webauthn")}>
                  <Fingerprint aria-hidden /> Add a passkey or security key
                </Button>
              </div>
              {adding === "totp" ? (
                <div className="mt-4 max-w-md">
                  <Suspense fallback={null}>
                    <TotpEnrolmentPanel key="totp" onEnrolled={enrolled} />
                  </Suspense>
                </div>
              ) : null}
              {adding === "webauthn" ? (
                <div className="mt-4 max-w-md">
                  <Suspense fallback={null}>
                    <PasskeyRegistration onEnrolled={enrolled} />
                  </Suspense>
                </div>
              ) : null}
            </CardBody>
          </Card>

          <Card>
            <CardHeader title="Recovery codes" description="Each signs you in once when your second factor is not at hand." />
            <CardBody>
              <p className="text-sm" data-testid="recovery-codes-left">
                <KeyRound className="mr-1 inline size-4 text-slate-500" aria-hidden />
                {own.recoveryCodesLeft} of 10 left
              </p>
              {readOnly ? null : (
                <>
                  <Button type="button" variant="secondary" size="sm" className="mt-3" disabled={busy || own.factors.length === 0} onClick={() => setRenewingCodes(true)}>
                    Generate new codes
                  </Button>
                  <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">The old codes stop working, and your other sessions are signed out.</p>
                </>
              )}
            </CardBody>
          </Card>
        </>
      )}

      <ConfirmDialog
        open={renewingCodes}
        onOpenChange={setRenewingCodes}
        title="Generate new recovery codes?"
        confirmLabel="Generate new codes"
        pending={busy}
        onConfirm={() => void regenerate()}
      >
        <p>
          Your remaining recovery codes stop working at once, and your other console sessions are signed out. The ten new codes are shown once: have
          somewhere to keep them.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => {
          if (!open) setRemoving(null);
        }}
        title={`Remove ${removing?.name ?? ""}?`}
        confirmLabel="Remove"
        pending={busy}
        onConfirm={() => void remove()}
      >
        <p>It will no longer sign you in. If it is your last second factor and an organization of yours requires MFA, your next sign-in asks you to set one up.</p>
      </ConfirmDialog>
    </div>
  );
}
