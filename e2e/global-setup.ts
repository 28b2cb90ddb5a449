/** Nothing to prepare beyond the web server; kept as the hook for fixtures that need the gateway up. */
export default async function globalSetup(): Promise<void> {}
