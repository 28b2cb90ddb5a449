"use client";

import { LoaderCircle } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { confirmTotpAction, startTotpAction } from "@/lib/console/mfa-actions";
import type { TotpEnrolment } from "@/lib/console/mfa";
import { reached } from "./reached";

export interface Enrolled {
  done: boolean;
  recoveryCodes: string[] | null;
}

/** The secret in groups of four, easier to type into an app by hand. */
function grouped(secret: string): string {
  return secret.match(/.{1,4}/g)?.join(" ") ?? secret;
}

/** Adds an authenticator app: a QR code and the secret as text, then a code from the app to confirm. */
export function TotpEnrolmentPanel({ onEnrolled }: { onEnrolled: (result: Enrolled) => void }) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  async function start() {
    setBusy(true);
    setError(null);
    const result = await reached(() => startTotpAction());
    setBusy(false);
    if (result.ok) setEnrolment(result.enrolment);
    else setError(result.error);
  }

  async function confirm(event: React.FormEvent) {
    event.preventDefault();
    if (!enrolment) return;
    setBusy(true);
    setError(null);
    const result = await reached(() => confirmTotpAction(enrolment.factorId, code));
    setBusy(false);
    if (result.ok) onEnrolled({ done: result.done, recoveryCodes: result.recoveryCodes });
    else {
      setError(result.error);
      setCode("");
    }
  }

  if (!enrolment) {
    return (
      <div className="space-y-2">
        <Button type="button" variant="secondary" className="w-full" disabled={busy} onClick={() => void start()}>
          {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : null}
          Set up an authenticator app
        </Button>
        {error ? (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {error}
          </p>
        ) : null}
      </div>
    );
  }

  return (
    <form onSubmit={(e) => void confirm(e)} noValidate className="space-y-4" aria-label="Set up an authenticator app">
      <ol className="list-decimal space-y-3 pl-5 text-sm">
        <li>
          Scan this QR code with your authenticator app.
          {/* A data: URL made on the server from the otpauth:// URI; no request leaves the page. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src={enrolment.qrCode} alt="QR code for your authenticator app" width={176} height={176} className="mt-2 rounded-md bg-white p-1" />
        </li>
        <li>
          Or type this key into the app:{" "}
          <code data-testid="totp-secret" data-secret={enrolment.secret} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-sm break-all dark:bg-slate-800">
            {grouped(enrolment.secret)}
          </code>
        </li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <Field label="Code from the app" htmlFor={`${id}-code`} error={error ?? undefined}>
        <Input
          id={`${id}-code`}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          className="font-mono tracking-widest"
        />
      </Field>
      <Button type="submit" className="w-full" disabled={busy || code.trim().length < 6}>
        {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : null}
        Confirm and turn on
      </Button>
    </form>
  );
}
