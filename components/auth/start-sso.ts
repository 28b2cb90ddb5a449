/**
 * Starts an SSO sign-in: next-auth's CSRF token, then the console's /api/auth/signin/sso with the
 * person's e-mail, whose domain picks the organization's provider. Answers where to send the
 * browser (the provider's sign-in page) or the refusal's code (lib/contract/sign-in-messages).
 */
export async function startSso(email: string, callbackPath: string): Promise<{ redirect: string } | { error: string }> {
  const { getCsrfToken } = await import("next-auth/react");
  const csrfToken = (await getCsrfToken()) ?? "";
  const res = await fetch("/api/auth/signin/sso", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, csrfToken, callbackUrl: callbackPath, json: "true" }),
  });
  const { url } = (await res.json()) as { url?: string };
  if (!url) return { error: "sso_unavailable" };
  const target = new URL(url, window.location.origin);
  // Back to this site with ?error=: a refusal to show here; anywhere else is the provider.
  const code = target.origin === window.location.origin ? target.searchParams.get("error") : null;
  return code ? { error: code } : { redirect: target.toString() };
}

/** A shape check only (the server checks the address properly); keeps zod off the sign-in page. */
export function looksLikeEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}
