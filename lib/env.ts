import { z } from "zod";

/**
 * The one place that reads process.env. Every setting is validated once; a bad
 * value stops the process with the variable named.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  STRATUS_DATA_DIR: z.string().min(1).default("./.data"),
  DATABASE_URL: z.string().url().optional(),
  /** 32 bytes, base64 or hex; generated into the data dir when unset. */
  STRATUS_MASTER_KEY: z.string().min(1).optional(),
  /** Allowed clock skew of signed requests, in seconds. */
  STRATUS_SIGNATURE_SKEW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** "0" turns off the demo organization written into an empty store. */
  STRATUS_SEED_DEMO: z.enum(["0", "1"]).default("1"),
  STRATUS_DEMO: z.enum(["0", "1"]).optional(),
  STRATUS_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Remote gateway for the console; unset means the embedded one. */
  CLOUD_API_URL: z.string().url().optional(),
  AUTH_SECRET: z.string().min(1).optional(),
  NEXTAUTH_SECRET: z.string().min(1).optional(),
});

export type Env = z.infer<typeof envSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  cached = parsed.data;
  return cached;
}

/** Tests change the environment between cases. */
export function resetEnvCache(): void {
  cached = undefined;
}
