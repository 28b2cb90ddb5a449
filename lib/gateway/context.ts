import type { ReadCache } from "@/lib/db/read-cache";
import type { Database } from "./store/client";
import type { Logger } from "./logger";

export interface GatewayDeps {
  db: Database;
  /** Reads that stay good until the store changes: keys, memberships, grants, project lists. */
  reads: ReadCache;
  masterKey: Buffer;
  skewSeconds: number;
  logger: Logger;
  /** Request bodies above this many bytes are refused with 413. */
  maxBodyBytes: number;
  /** Longest time to the first byte of an answer. */
  requestTimeoutMs: number;
  /** Proxies in front of the gateway whose X-Forwarded-For entries count (0: the socket's address). */
  trustedProxyHops: number;
  /** Shared with a remote console: its calls carry an HMAC under it (lib/gateway/origin.ts). */
  consoleChannelKey?: string;
  /** SSO providers may have an issuer on the loopback (development and tests only). */
  ssoLoopbackIssuers?: boolean;
}

export interface Caller {
  userId: string;
  email: string;
  accessKeyId: string;
  /** The one organization this caller's key acts in (a key minted for an SSO session); absent: all of the account's. */
  organizationId?: string;
}

export interface AuditMeta {
  organizationId?: string;
  action: string;
  actionDetail: string;
  targetType: string;
  targetIds?: string[];
  targetNames?: string[];
  projectId?: string | null;
  projectName?: string | null;
  locations?: string[];
}

export type AppEnv = {
  Variables: {
    requestId: string;
    deps: GatewayDeps;
    caller: Caller;
    /** What a mutating call is about, set by its handler before it can fail. */
    audit?: AuditMeta;
    /** Set once the call's audit entry is written (in the mutation's own transaction). */
    audited?: boolean;
    errorMessage?: string;
    /** A mutating signed call's claim on its signature, spent by its change (middleware/replay.ts). */
    replayClaim?: import("./middleware/replay").ReplayClaim;
    startedAt: Date;
    access: import("./authz").Access;
  };
};
