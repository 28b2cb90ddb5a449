/**
 * Runs once when the console's server starts. In Node.js, every HTTP server of the
 * process answers unsupported methods with 405 and records each request's socket
 * address before Next.js sees it (lib/client-address.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installRequestGuard } = await import("./lib/client-address");
  installRequestGuard();
  // The embedded gateway opens its store, and on a fresh data dir writes the demo organization,
  // as the server starts rather than on the first request; not awaited, so the server answers at
  // once (the sign-in page says "preparing demo data" meanwhile).
  if (!process.env.CLOUD_API_URL && process.env.NEXT_PHASE !== "phase-production-build") {
    const { embeddedGateway } = await import("./lib/gateway/runtime");
    embeddedGateway().catch((error: unknown) => console.error("the embedded gateway did not start", error));
  }
}
