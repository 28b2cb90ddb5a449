"use client";

import { Fingerprint, LoaderCircle, LogOut } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { DateText } from "@/components/common/dates";
import { answerRecoveryCodeAction, answerTotpAction, postponeAction } from "@/lib/console/mfa-actions";
import type { MfaStepState } from "@/lib/console/mfa";
import { FACTORS_MANAGED_ELSEWHERE, finishSignInPath } from "@/lib/contract/sign-in-messages";
import { CodeForm } from "./code-form";
import { answerWithPasskey, PasskeyRegistration } from "./passkey-registration";
import { RecoveryCodes } from "./recovery-codes";
import { TotpEnrolmentPanel, type Enrolled } from "./totp-enrolment";
import { reached } from "./reached";

const METHOD_NAMES = { totp: "an authenticator app", webauthn: "a passkey or security key" } as const;

/**
 * The MFA step of sign-in: answer with a factor the person has, or enrol one the organization
 * requires (then see the recovery codes once), or a recovery code, or, within a grace period, later.
 */
export function MfaStep({ step, callbackPath }: { step: MfaStepState; callbackPath: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [useRecovery, setUseRecovery] = useState(false);
  const alertRef = useRef<HTMLDivElement>(null);
  const [failures, setFailures] = useState(0);
  useEffect(() => {
    if (failures > 0) alertRef.current?.focus();
  }, [failures]);

  // A full load of the step's end, which moves the session to its new cookie and goes on to the page.
  const finish = (done: boolean) => (done ? window.location.assign(finishSignInPath(callbackPath)) : router.refresh());
  const fail = (message: string) => {
    setError(message);
    setFailures((n) => n + 1);
  };

  async function run(kind: string, action: () => Promise<{ ok: true; done: boolean } | { ok: false; error: string }>) {
    setBusy(kind);
    setError(null);
    try {
      const result = await reached(action);
      if (result.ok) return finish(result.done);
      fail(result.error);
    } finally {
      setBusy(null);
    }
  }

  const passkey = () => run("passkey", answerWithPasskey);

  const enrolled = (result: Enrolled) => (result.recoveryCodes ? setCodes(result.recoveryCodes) : finish(result.done));

  if (codes) return <RecoveryCodes codes={codes} continueLabel="Continue to the console" onContinue={() => finish(true)} />;

  const asking = step.organizations.filter((o) => !o.satisfied);
  // Every factor given (the browser is on its way to the step's end): a way on, should it not get there.
  if (asking.length === 0) {
    return (
      <a href={finishSignInPath(callbackPath)} className="block text-center text-sm font-medium text-blue-700 underline dark:text-blue-400">
        Continue to the console
      </a>
    );
  }
  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {asking.map((o) => o.name).join(", ")} {asking.length === 1 ? "requires" : "require"} a second factor to sign in to the console.
      </p>
      <div
        ref={alertRef}
        tabIndex={-1}
        role="alert"
        className={
          error
            ? "rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 outline-none dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
            : "hidden"
        }
      >
        {error}
      </div>

      {step.answer.includes("totp") && !useRecovery ? <CodeForm label="Authentication code" hint="The 6-digit code from your authenticator app." busy={busy === "totp"} onSubmit={(code) => run("totp", () => answerTotpAction(code))} numeric /> : null}

      {step.answer.includes("webauthn") && !useRecovery ? (
        <Button type="button" variant={step.answer.includes("totp") ? "secondary" : "primary"} className="w-full" disabled={busy !== null} onClick={() => void passkey()}>
          {busy === "passkey" ? <LoaderCircle className="animate-spin" aria-hidden /> : <Fingerprint aria-hidden />}
          Use a passkey or security key
        </Button>
      ) : null}

      {(step.enrol.length > 0 || step.enrolElsewhere) && !useRecovery ? (
        <section aria-labelledby="enrol-heading" className="space-y-4">
          <h2 id="enrol-heading" className="text-base font-semibold">
            Set up a second factor
          </h2>
          {step.enrolElsewhere ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">{FACTORS_MANAGED_ELSEWHERE}.</p>
          ) : step.proveFirst ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              First confirm it&apos;s you with a second factor you already have{step.recoveryCodesLeft > 0 ? " or a recovery code" : ""}, then set up{" "}
              {step.enrol.map((m) => METHOD_NAMES[m]).join(" or ")}.
            </p>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">Choose {step.enrol.map((m) => METHOD_NAMES[m]).join(" or ")}.</p>
          )}
          {step.enrol.includes("totp") && !step.proveFirst ? <TotpEnrolmentPanel onEnrolled={enrolled} /> : null}
          {step.enrol.includes("webauthn") && !step.proveFirst ? <PasskeyRegistration onEnrolled={enrolled} /> : null}
          {step.postponeUntil ? (
            <div className="space-y-1 border-t border-slate-200 pt-4 dark:border-slate-800">
              <Button type="button" variant="ghost" className="w-full" disabled={busy !== null} onClick={() => void run("later", () => postponeAction())}>
                Set up later
              </Button>
              <p className="text-center text-xs text-slate-500 dark:text-slate-400">
                Your organization allows this until <DateText value={step.postponeUntil} />.
              </p>
            </div>
          ) : null}
        </section>
      ) : null}

      {useRecovery ? (
        <CodeForm label="Recovery code" hint="One of the codes you saved when you set up your second factor." busy={busy === "recovery"} onSubmit={(code) => run("recovery", () => answerRecoveryCodeAction(code))} />
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 pt-4 text-sm dark:border-slate-800">
        {step.recoveryCodesLeft > 0 ? (
          <Button type="button" variant="link" size="inline" onClick={() => setUseRecovery((v) => !v)}>
            {useRecovery ? "Use your second factor instead" : "Use a recovery code"}
          </Button>
        ) : (
          <span />
        )}
        <SignOutButton />
      </div>
    </div>
  );
}

function SignOutButton() {
  return (
    <Button
      type="button"
      variant="ghost"
      size="sm"
      onClick={() => void import("next-auth/react").then(({ signOut }) => signOut({ callbackUrl: "/sign-in?reason=signed-out" }))}
    >
      <LogOut aria-hidden /> Sign out
    </Button>
  );
}
