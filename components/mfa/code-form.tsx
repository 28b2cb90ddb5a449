"use client";

import { LoaderCircle } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";

/** A one-time code typed in: the authenticator app's, or a recovery code. */
export function CodeForm({
  label,
  hint,
  busy,
  numeric = false,
  autoFocus = true,
  onSubmit,
}: {
  label: string;
  hint: string;
  busy: boolean;
  numeric?: boolean;
  /** On the sign-in step, where the code is all there is to do; not on a page with more on it. */
  autoFocus?: boolean;
  onSubmit: (code: string) => Promise<void>;
}) {
  const [code, setCode] = useState("");
  const id = useId();
  return (
    <form
      noValidate
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit(code).then(() => setCode(""));
      }}
    >
      <Field label={label} htmlFor={id} hint={hint}>
        <Input
          id={id}
          autoFocus={autoFocus}
          inputMode={numeric ? "numeric" : "text"}
          autoComplete="one-time-code"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={numeric ? 7 : 16}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          className="font-mono tracking-widest"
        />
      </Field>
      <Button type="submit" className="w-full" disabled={busy || code.trim().length === 0}>
        {busy ? <LoaderCircle className="animate-spin" aria-hidden /> : null}
        Verify
      </Button>
    </form>
  );
}
