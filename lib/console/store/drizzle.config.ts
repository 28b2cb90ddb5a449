import { defineConfig } from "drizzle-kit";

/** The console's tables: `npx drizzle-kit generate --config lib/console/store/drizzle.config.ts`. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/console/store/schema.ts",
  out: "./lib/console/store/migrations",
  migrations: { table: "__console_migrations", schema: "drizzle" },
});
