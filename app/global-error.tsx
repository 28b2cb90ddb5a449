"use client";

/** Last resort when the root layout itself fails: no providers, plain markup. */
export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", padding: "4rem", textAlign: "center" }}>
        <h1>Stratus hit an error</h1>
        <p>{error.digest ? `Reference: ${error.digest}` : "Please try again."}</p>
        <button onClick={reset} style={{ padding: "0.5rem 1rem" }}>
          Try again
        </button>
      </body>
    </html>
  );
}
