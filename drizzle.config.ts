import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/gateway/store/schema/index.ts",
  out: "./lib/gateway/store/migrations",
});
