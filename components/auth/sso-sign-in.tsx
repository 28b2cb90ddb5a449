"use client";

import { Building2, LoaderCircle } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { looksLikeEmail } from "./start-sso";

/** "Sign in with SSO": the person's work e-mail, whose domain picks their organization's provider. */
export function SsoSignIn({ disabled, pending, inputClass, onStart }: { disabled: boolean; pending: boolean; inputClass: string; onStart: (email: string) => void }) {
  const ids = { email: useId(), error: useId(), heading: useId() };
  const [fieldError, setFieldError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    if (!looksLikeEmail(email)) {
      setFieldError("Enter your work e-mail address");
      return;
    }
    setFieldError(null);
    onStart(email);
  }

  return (
    <section aria-labelledby={ids.heading} className="space-y-3">
      <h2 id={ids.heading} className="text-sm font-medium">
        Single sign-on
      </h2>
      <form onSubmit={submit} noValidate className="space-y-3" aria-label="Sign in with SSO">
        <div>
          <label htmlFor={ids.email} className="block text-sm font-medium">
            Work e-mail
          </label>
          <input
            id={ids.email}
            name="email"
            type="email"
            autoComplete="email"
            autoCapitalize="none"
            spellCheck={false}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? ids.error : undefined}
            className={inputClass}
          />
          {fieldError ? (
            <p id={ids.error} className="mt-1 text-sm text-red-600 dark:text-red-400">
              {fieldError}
            </p>
          ) : null}
        </div>
        <Button type="submit" variant="secondary" className="w-full" disabled={disabled}>
          {pending ? <LoaderCircle className="animate-spin" aria-hidden /> : <Building2 aria-hidden />}
          Sign in with SSO
        </Button>
      </form>
    </section>
  );
}
