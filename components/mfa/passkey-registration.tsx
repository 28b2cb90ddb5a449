"use client";

import { Fingerprint, LoaderCircle } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { answerPasskeyAction, passkeyAssertionOptionsAction, passkeyRegistrationOptionsAction, registerPasskeyAction } from "@/lib/console/mfa-actions";
import type { Enrolled } from "./totp-enrolment";
import { reached } from "./reached";

/** What the browser said when the ceremony did not finish, in words. */
export function webauthnFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError") return "The request was cancelled or timed out; try again";
  if (name === "InvalidStateError") return "That security key is already registered";
  if (name === "NotSupportedError" || name === "SecurityError") return "This browser cannot use passkeys on this site";
  return "The browser could not complete the request; try again";
}

/** An answer with one of the person's passkeys, through the browser (the MFA step, and confirming it's them). */
export async function answerWithPasskey(): Promise<{ ok: true; done: boolean } | { ok: false; error: string }> {
  const options = await reached(() => passkeyAssertionOptionsAction());
  if (!options.ok) return options;
  const { startAuthentication } = await import("@simplewebauthn/browser");
  try {
    const response = await startAuthentication({ optionsJSON: options.options });
    return await reached(() => answerPasskeyAction(response));
  } catch (failure) {
    return { ok: false, error: webauthnFailure(failure) };
  }
}

/** Registers a passkey or security key with a name the person chooses. */
export function PasskeyRegistration({ onEnrolled }: { onEnrolled: (result: Enrolled) => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  async function register(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const options = await reached(() => passkeyRegistrationOptionsAction());
      if (!options.ok) return setError(options.error);
      // The WebAuthn browser library loads only when someone registers a key.
      const { startRegistration } = await import("@simplewebauthn/browser");
      let response;
      try {
        response = await startRegistration({ optionsJSON: options.options });
      } catch (failure) {
        return setError(webauthnFailure(failure));
      }
      const result = await reached(() => registerPasskeyAction(response, name));
      if (result.ok) onEnrolled({ done: result.done, recoveryCodes: result.recoveryCodes });
      else setError(result.error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void register(e)} noValidate className="space-y-3" aria-label="Register a passkey or security key">
      <Field label="Name (optional)" htmlFor={`${id}-name`} hint="So you can tell your keys apart, e.g. “Work laptop”." error={error ?? undefined}>
        <Input id={`${id}-name`} maxLength={64} value={name} onChange={(e) => setName(e.target.value)} placeholder="Passkey" />
      </Field>
      <Button type="submit" variant="secondary" className="w-full" disabled={busy}>
        {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : <Fingerprint aria-hidden />}
        Register a passkey or security key
      </Button>
    </form>
  );
}
