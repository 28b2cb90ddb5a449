import { defineConfig } from "drizzle-kit";

/** The console's tables: `npx drizzle-kit generate --config lib/cloud/store/drizzle.config.ts`. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/cloud/store/schema.ts",
  out: "./lib/cloud/store/migrations",
  migrations: { table: "__console_migrations", schema: "drizzle" },
});
