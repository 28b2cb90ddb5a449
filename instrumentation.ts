/**
 * Runs once when the console's server starts. In Node.js, every HTTP server of the
 * process answers unsupported methods with 405 and records each request's socket
 * address before Next.js sees it (lib/client-address.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installRequestGuard } = await import("./lib/client-address");
  installRequestGuard();
  // The configuration is checked as the server starts, not at its first request (lib/startup-check.ts).
  if (process.env.NEXT_PHASE !== "phase-production-build") {
    const { checkConsoleConfiguration } = await import("./lib/startup-check");
    checkConsoleConfiguration();
    // The stores close as the server stops, after its last request (lib/close-on-exit.ts); unless whoever runs the
    // server handles the signals themselves (Next.js's NEXT_MANUAL_SIG_HANDLE), when nothing may hold the exit.
    if (!process.env.NEXT_MANUAL_SIG_HANDLE) {
      const { installCloseOnExit } = await import("./lib/close-on-exit");
      installCloseOnExit();
    }
  }
  // The embedded gateway opens its store as the server starts, and the server answers once it is
  // open: opening a fresh PGlite data dir (initdb) blocks the process for a couple of seconds, which
  // a first request would otherwise sit behind. The demo organization is written afterwards, in the
  // background (the sign-in page says "preparing demo data" meanwhile).
  if (!process.env.CLOUD_API_URL && process.env.NEXT_PHASE !== "phase-production-build") {
    const { openEmbeddedGateway } = await import("./lib/gateway/runtime");
    // Its reason, not the error's stack and wrapped statement (Drizzle's repeats the statement's parameters).
    const { errorDetail } = await import("./lib/error-detail");
    await openEmbeddedGateway((error) => console.error(`the embedded gateway did not start: ${errorDetail(error)}`));
  }
}
