/** The auth secret the e2e web server runs with (playwright.config.ts); specs that unseal the vault need it too. */
export const E2E_AUTH_SECRET = process.env.AUTH_SECRET ?? "e2e-only-auth-secret-0123456789abcdef";
