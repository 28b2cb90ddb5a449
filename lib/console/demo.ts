import "server-only";
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { gatewayIsEmbedded } from "@/lib/console/config";
import { env } from "@/lib/env";
import { embeddedGateway, embeddedGatewayState } from "@/lib/gateway/runtime";
import { demoCredentialsFile } from "@/lib/gateway/seed";

/**
 * One-click demo sign-in: the server reads the demo users' keys from the data dir
 * (written when the embedded gateway seeded its store); the browser only says who.
 */
export const demoWhoSchema = z.enum(["owner", "member", "auditor"]);
export type DemoWho = z.infer<typeof demoWhoSchema>;

const demoUserSchema = z.object({ user_id: z.string().min(1), email: z.string().min(1), access_key_id: z.string().min(1), secret_key: z.string().min(1) });
const demoFileSchema = z.object({ organization_id: z.string(), owner: demoUserSchema, member: demoUserSchema, auditor: demoUserSchema });

export type DemoUser = z.infer<typeof demoUserSchema>;

/** Allowed by configuration: embedded gateway, and not production unless STRATUS_DEMO=1 (STRATUS_DEMO=0 turns it off). */
export function demoAllowed(): boolean {
  const config = env();
  if (!gatewayIsEmbedded()) return false;
  if (config.STRATUS_DEMO === "1") return true;
  return config.STRATUS_DEMO !== "0" && config.NODE_ENV !== "production";
}

function credentialsFile(): string {
  return demoCredentialsFile(env().STRATUS_DATA_DIR);
}

/** Allowed, and the gateway (started here if need be) has written its demo credentials. */
export async function demoAvailable(): Promise<boolean> {
  if (!demoAllowed()) return false;
  try {
    await embeddedGateway();
  } catch {
    return false;
  }
  return existsSync(credentialsFile());
}

/**
 * The demo sign-in's state without waiting for the gateway: "preparing" while the embedded gateway
 * still writes the demo organization (the first start of a fresh data dir), so the sign-in page
 * can say so at once instead of hanging until it is done.
 */
export async function demoState(): Promise<"available" | "preparing" | "unavailable"> {
  if (!demoAllowed()) return "unavailable";
  const gateway = embeddedGatewayState();
  if (gateway.state === "starting") return "preparing";
  // A start that failed (the data dir held by another process, the store refusing): no demo, and the page stops
  // waiting for one; the server's log says why.
  if (gateway.state === "failed") return "unavailable";
  return (await demoAvailable()) ? "available" : "unavailable";
}

export async function readDemoUser(who: DemoWho): Promise<DemoUser | null> {
  if (!(await demoAvailable())) return null;
  try {
    const parsed = demoFileSchema.safeParse(JSON.parse(readFileSync(credentialsFile(), "utf8")));
    return parsed.success ? parsed.data[who] : null;
  } catch {
    return null;
  }
}
