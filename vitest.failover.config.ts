import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The failover test (`npm run test:failover`): a pg_auto_failover formation on loopback,
 * two standalone gateways, one file run alone.
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
