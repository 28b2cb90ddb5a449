"use client";

/**
 * Keeps the shell when a page fails; the digest matches the server log.
 * Loaded with every console page, so it is kept to plain elements: no icon set,
 * button component or client-side link of its own (a full load of /orgs is the
 * right way back after an error anyway).
 */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const button =
    "inline-flex h-9 items-center justify-center rounded-md px-4 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2";
  return (
    <div role="alert" className="mx-auto flex max-w-lg flex-col items-center gap-3 py-16 text-center">
      <svg className="size-8 text-red-500" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
        <path d="m21.73 18-8-14a2 2 0 0 0-3.48 0l-8 14A2 2 0 0 0 4 21h16a2 2 0 0 0 1.73-3" />
        <path d="M12 9v4" />
        <path d="M12 17h.01" />
      </svg>
      <h1 className="text-lg font-semibold">This page could not be loaded</h1>
      <p className="text-sm text-slate-600 dark:text-slate-300">
        The gateway may be unreachable, or the page hit an error. {error.digest ? <>Reference: <code>{error.digest}</code>.</> : null}
      </p>
      <div className="flex gap-2">
        <button type="button" onClick={reset} className={`${button} bg-brand-600 text-white hover:bg-brand-700`}>
          Try again
        </button>
        {/* A full load on purpose: it starts the console afresh after an error. */}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
        <a
          href="/orgs"
          className={`${button} border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800`}
        >
          Back to your organization
        </a>
      </div>
    </div>
  );
}
