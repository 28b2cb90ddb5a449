"use client";

import { AlertTriangle } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";

/** Keeps the shell when a page fails; the digest matches the server log. */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto flex max-w-lg flex-col items-center gap-3 py-16 text-center">
      <AlertTriangle className="size-8 text-red-500" aria-hidden />
      <h1 className="text-lg font-semibold">This page could not be loaded</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        The gateway may be unreachable, or the page hit an error. {error.digest ? <>Reference: <code>{error.digest}</code>.</> : null}
      </p>
      <div className="flex gap-2">
        <Button onClick={reset}>Try again</Button>
        <Button variant="secondary" asChild>
          <Link href="/orgs">Back to your organization</Link>
        </Button>
      </div>
    </div>
  );
}
