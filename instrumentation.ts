/**
 * Runs once when the console's server starts. In Node.js, every HTTP server of the
 * process answers unsupported methods with 405 and records each request's socket
 * address before Next.js sees it (lib/client-address.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installRequestGuard } = await import("./lib/client-address");
  installRequestGuard();
}
