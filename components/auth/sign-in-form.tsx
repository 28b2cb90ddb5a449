"use client";

import { KeyRound, LoaderCircle, UserRound } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { signInErrorMessage } from "@/lib/contract/sign-in-messages";
import type { ApiKeySignIn } from "@/lib/contract/sign-in";
import { cn } from "@/lib/utils";
import { signInResolver } from "./sign-in-resolver";
import { SsoSignIn } from "./sso-sign-in";
import { startSso } from "./start-sso";

/** next-auth's browser client, fetched when the user signs in rather than with the page. */
const signIn: typeof import("next-auth/react").signIn = async (...args) => (await import("next-auth/react")).signIn(...args);

export interface SignInFormProps {
  callbackPath: string;
  demo: boolean;
  /** The server is still writing the demo organization (first start): the demo buttons wait for it. */
  preparing?: boolean;
  initialError: string | null;
  notice: string | null;
}

type Pending = "api-key" | "sso" | "owner" | "member" | "auditor" | null;

const inputClass =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm outline-none placeholder:text-slate-400 " +
  "focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-500/40 aria-[invalid=true]:border-red-500 " +
  "dark:border-slate-700 dark:bg-slate-950 dark:placeholder:text-slate-500 dark:text-slate-400";

export function SignInForm({ callbackPath, demo, preparing = false, initialError, notice }: SignInFormProps) {
  const router = useRouter();
  // While the demo data is prepared, the page asks the server again every two seconds.
  useEffect(() => {
    if (!preparing) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [preparing, router]);
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState<Pending>(null);
  const [failures, setFailures] = useState(0);
  const alertRef = useRef<HTMLDivElement>(null);
  const ids = { key: useId(), secret: useId(), keyError: useId(), secretError: useId() };
  const form = useForm<ApiKeySignIn>({ resolver: signInResolver, defaultValues: { access_key_id: "", secret_key: "" } });
  const { errors } = form.formState;

  async function attempt(kind: Exclude<Pending, null>, run: () => ReturnType<typeof signIn>) {
    setError(null);
    setPending(kind);
    try {
      const result = await run();
      if (result?.ok && !result.error) {
        // A full load, so every server component sees the new session cookie.
        window.location.assign(callbackPath);
        return;
      }
      setError(signInErrorMessage(result?.error ?? "unknown"));
    } catch {
      setError(signInErrorMessage("gateway_unavailable"));
    }
    form.resetField("secret_key");
    setPending(null);
    setFailures((n) => n + 1);
  }

  // After a failed attempt the message takes focus, so it is read out.
  useEffect(() => {
    if (failures > 0) alertRef.current?.focus();
  }, [failures]);

  function refused(code: string) {
    setError(signInErrorMessage(code));
    setPending(null);
    setFailures((n) => n + 1);
  }

  async function attemptSso(email: string) {
    setError(null);
    setPending("sso");
    try {
      const started = await startSso(email, callbackPath);
      // Off to the organization's identity provider, which sends the browser back to the console.
      if ("redirect" in started) window.location.assign(started.redirect);
      else refused(started.error);
    } catch {
      refused("sso_unavailable");
    }
  }

  const onSubmit = form.handleSubmit((values) =>
    attempt("api-key", () => signIn("api-key", { redirect: false, access_key_id: values.access_key_id, secret_key: values.secret_key })),
  );

  const busy = pending !== null;

  return (
    <div className="mt-6 space-y-6">
      {notice && !error ? (
        <p role="status" className="rounded-md border border-brand-500/30 bg-brand-50 px-3 py-2 text-sm text-slate-800 dark:bg-brand-500/10 dark:text-slate-200">
          {notice}
        </p>
      ) : null}
      <div
        ref={alertRef}
        tabIndex={-1}
        role="alert"
        className={cn(
          "rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 outline-none dark:border-red-900 dark:bg-red-950/50 dark:text-red-200",
          !error && "hidden",
        )}
      >
        {error}
      </div>

      <SsoSignIn disabled={busy} pending={pending === "sso"} inputClass={inputClass} onStart={(email) => void attemptSso(email)} />

      <form onSubmit={onSubmit} noValidate className="space-y-4 border-t border-slate-200 pt-6 dark:border-slate-800" aria-label="Sign in with an API key">
        <div>
          <label htmlFor={ids.key} className="block text-sm font-medium">
            Access key ID
          </label>
          <input
            id={ids.key}
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={errors.access_key_id ? true : undefined}
            aria-describedby={errors.access_key_id ? ids.keyError : undefined}
            className={inputClass}
            {...form.register("access_key_id")}
          />
          {errors.access_key_id ? (
            <p id={ids.keyError} className="mt-1 text-sm text-red-600 dark:text-red-400">
              {errors.access_key_id.message}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor={ids.secret} className="block text-sm font-medium">
            Secret key
          </label>
          <input
            id={ids.secret}
            type="password"
            autoComplete="current-password"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={errors.secret_key ? true : undefined}
            aria-describedby={errors.secret_key ? ids.secretError : undefined}
            className={inputClass}
            {...form.register("secret_key")}
          />
          {errors.secret_key ? (
            <p id={ids.secretError} className="mt-1 text-sm text-red-600 dark:text-red-400">
              {errors.secret_key.message}
            </p>
          ) : null}
        </div>
        <Button type="submit" className="w-full" disabled={busy}>
          {pending === "api-key" ? <LoaderCircle className="animate-spin" aria-hidden /> : <KeyRound aria-hidden />}
          Sign in
        </Button>
      </form>

      {demo ? (
        <section aria-labelledby="demo-heading" className="border-t border-slate-200 pt-6 dark:border-slate-800">
          <h2 id="demo-heading" className="text-sm font-medium">
            Try the demo organization
          </h2>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Signs in with a demo user&apos;s key, kept on the server.</p>
          {preparing ? (
            <p role="status" className="mt-2 flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
              <LoaderCircle className="size-4 animate-spin motion-reduce:animate-none" aria-hidden /> Preparing demo data… this takes a few seconds on the first start.
            </p>
          ) : null}
          <div className="mt-3 grid gap-2 sm:grid-cols-2">
            {(["owner", "member", "auditor"] as const).map((who) => (
              <Button
                key={who}
                type="button"
                variant="secondary"
                // The label wraps in a narrow column rather than run past the button's edge.
                wrap
                disabled={busy || preparing}
                onClick={() => void attempt(who, () => signIn("demo", { redirect: false, who }))}>
                {pending === who ? <LoaderCircle className="animate-spin" aria-hidden /> : <UserRound aria-hidden />}
                Sign in as demo {who}
              </Button>
            ))}
          </div>
        </section>
      ) : null}
    </div>
  );
}
