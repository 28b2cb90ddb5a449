"use client";

import { Fingerprint, LoaderCircle } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { answerRecoveryCodeAction, answerTotpAction } from "@/lib/console/mfa-actions";
import { CodeForm } from "./code-form";
import { answerWithPasskey } from "./passkey-registration";
import { reached } from "./reached";

type Answer = { ok: true } | { ok: false; error: string };

/**
 * For a session signed in where no organization asked for a second factor, of a person who has one:
 * before it changes their factors or recovery codes, it answers with one they already have (the
 * server refuses the changes until then: lib/console/mfa.ts mustConfirmItsYou). Then the page renders
 * again, with the changes open.
 */
export function ConfirmItsYou({ methods, recoveryCodesLeft }: { methods: Array<"totp" | "webauthn">; recoveryCodesLeft: number }) {
  const router = useRouter();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [useRecovery, setUseRecovery] = useState(false);

  async function run(kind: string, answer: () => Promise<Answer>) {
    setBusy(kind);
    setError(null);
    try {
      const result = await reached(answer);
      if (result.ok) router.refresh();
      else setError(result.error);
    } finally {
      setBusy(null);
    }
  }

  const passkey = () => run("passkey", answerWithPasskey);

  return (
    <Card>
      <CardHeader title="Confirm it's you" description="This session was signed in without a second factor. Answer with one you already have to add or remove factors, or to get new recovery codes." />
      <CardBody className="max-w-md space-y-4">
        {error ? (
          <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            {error}
          </p>
        ) : null}
        {useRecovery ? (
          <CodeForm label="Recovery code" hint="One of the codes you saved; it is spent." busy={busy === "recovery"} autoFocus={false} onSubmit={(code) => run("recovery", () => answerRecoveryCodeAction(code))} />
        ) : (
          <>
            {methods.includes("totp") ? (
              <CodeForm label="Authentication code" hint="The 6-digit code from your authenticator app." busy={busy === "totp"} numeric autoFocus={false} onSubmit={(code) => run("totp", () => answerTotpAction(code))} />
            ) : null}
            {methods.includes("webauthn") ? (
              <Button type="button" variant={methods.includes("totp") ? "secondary" : "primary"} className="w-full" disabled={busy !== null} onClick={() => void passkey()}>
                {busy === "passkey" ? <LoaderCircle className="animate-spin" aria-hidden /> : <Fingerprint aria-hidden />}
                Use a passkey or security key
              </Button>
            ) : null}
          </>
        )}
        {recoveryCodesLeft > 0 ? (
          <Button type="button" variant="link" size="inline" onClick={() => setUseRecovery((v) => !v)}>
            {useRecovery ? "Use your second factor instead" : "Use a recovery code"}
          </Button>
        ) : null}
      </CardBody>
    </Card>
  );
}
