import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The failover tests (`npm run test:failover`): a pg_auto_failover formation on loopback and
 * two standalone gateways; two TLS-only servers behind one multi-host URL. One file at a time.
 */
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["failover/**/*.test.ts"],
    environment: "node",
    testTimeout: 240_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
