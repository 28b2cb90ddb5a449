import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      // Next.js resolves "server-only" to nothing on the server and fails a browser bundle that imports it;
      // tests run lib/console's server modules directly.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    // Records what every file logs and fails it when a secret made meanwhile is in there.
    setupFiles: ["./vitest.setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Each gateway test file opens its own in-memory PGlite; two workers fit two cores.
    maxWorkers: 2,
  },
});
