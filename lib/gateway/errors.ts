import { errorDetail } from "@/lib/error-detail";
import type { Logger } from "./logger";

/** Machine-readable reasons and the status each one maps to. */
export const REASONS = {
  bad_request: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  internal: 500,
  unavailable: 503,
  timeout: 504,
} as const;

export type Reason = keyof typeof REASONS;
export type ErrorStatus = (typeof REASONS)[Reason];

/** The error body of every 4xx/5xx: the reference's ErrorBody fields. */
export interface ErrorBody {
  code: string;
  message: string;
  error_id: string;
  reason: string;
}

export class GatewayError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly reason: Reason,
    message: string,
  ) {
    super(message);
    this.status = REASONS[reason];
  }
}

export const badRequest = (field: string, problem: string) => new GatewayError("bad_request", `${field}: ${problem}`);
export const forbidden = (message: string) => new GatewayError("permission_denied", message);
export const notFound = (message: string) => new GatewayError("not_found", message);
export const conflict = (message: string) => new GatewayError("conflict", message);

/**
 * The symbolic code of a server failure. The upstream answers its 500s with it, and its
 * clients look for it (the upstream's Terraform provider then shows the error id); every
 * other error's code is its status, as a string.
 */
export const INTERNAL_ERROR_CODE = "internal_error";

export function errorBody(status: number, reason: string, message: string, errorId: string): ErrorBody {
  return { code: status === 500 ? INTERNAL_ERROR_CODE : String(status), message, error_id: errorId, reason };
}

/** Names the audit log gives a call's result, from its status. */
export function resultName(status: number): string {
  if (status < 400) return "OK";
  switch (status) {
    case 400:
    case 413:
    case 415:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ALREADY_EXISTS";
    default:
      return "INTERNAL";
  }
}

/** Seconds a client is told to wait (Retry-After) when the store is away: a failover takes several. */
export const RETRY_AFTER_SECONDS = 2;

/** Errors of node sockets: the store's server cannot be reached or went away. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);
/**
 * The store's server could be reached, but not trusted: its TLS certificate was refused (OpenSSL's verify codes,
 * node's name check), or the TLS handshake failed. Nothing about the request: 503 with Retry-After like a server away
 * (a failover to a node whose certificate is wrong looks just so to a client), and logged as what it is
 * (storeCertificateRefusal), since waiting will not fix it.
 */
const TLS_REFUSALS = new Set([
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_CHAIN_TOO_LONG",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "INVALID_CA",
  "INVALID_PURPOSE",
  "PATH_LENGTH_EXCEEDED",
  "HOSTNAME_MISMATCH",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);
/** node-postgres's own word for a server that takes no TLS when the connection string asks for it. */
const NO_TLS_SERVER = /^The server does not support SSL connections/;

/**
 * SQLSTATEs that say the server is away or not the one taking writes, rather than
 * anything about the request: admin/crash shutdown and "starting up" (57P01-57P03),
 * too many connections (53300), a read-only session on a standby (25006); and the
 * host list's own (lib/db/hosts): no writable host, a host silent at a new connection, a
 * connection ended because its host was given up on.
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "25006", "STRATUS_NO_USABLE_HOST", "STRATUS_SILENT_HOST", "STRATUS_HOST_GIVEN_UP"]);
/**
 * The one connection exception (class 08) that is the statement's fault, not the connection's: a
 * protocol violation, such as more than 65,535 bind parameters. Retried, it fails the same way.
 */
const PROTOCOL_VIOLATION = "08P01";
/** node-postgres's messages for a connection that ended or could not be had in time; a store closed (shutting down). */
const CONNECTION_LOST =
  /^(PGlite is closed|Cannot use a pool after calling end on the pool|Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout|connect ETIMEDOUT)/;

/**
 * Whether an error means the store is unavailable for now (a restart, a failover, a
 * network cut), which the gateway answers 503 with Retry-After, not 500. Looks through
 * the causes an ORM wraps a driver error in.
 */
export function isStoreUnavailable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || (code.startsWith("08") && code !== PROTOCOL_VIOLATION))) return true;
    if (typeof message === "string" && CONNECTION_LOST.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return storeCertificateRefusal(error) !== null;
}

/** Says in the log why a request met a store it could not trust (storeCertificateRefusal): nothing when it did not. */
export function logCertificateRefusal(logger: Logger | undefined, thrown: unknown, requestId: string): void {
  const refusal = storeCertificateRefusal(thrown);
  // Not a moment's absence, which a 503 is otherwise: waiting will not change the store's certificate.
  if (refusal) logger?.error("the store's TLS certificate was refused", { request_id: requestId, reason: refusal, error: errorDetail(thrown) });
}

/**
 * Why the store's server was not trusted (a TLS verify code, or "no TLS" for a server that takes none), or null when
 * the error is not that. A configuration's fault (the CA, the names in the certificate, sslmode) or a host that is not
 * the store's: said in the log, which a 503 alone would not.
 */
export function storeCertificateRefusal(error: unknown): string | null {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof code === "string" && TLS_REFUSALS.has(code)) return code;
    if (typeof message === "string" && NO_TLS_SERVER.test(message)) return "no TLS";
    // No host of a list usable: each host's own error (lib/db/hosts NoUsableHostError), the first refusal among them.
    if (Array.isArray(errors)) {
      const refusal = errors.map((each) => storeCertificateRefusal(each)).find((found) => found !== null);
      if (refusal) return refusal;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Unique constraints and the field a clash on each one is about. */
const UNIQUE_FIELDS: Record<string, string> = {
  projects_org_name_uq: "body.name: a project with this name already exists in this organization",
  role_bindings_uq: "bindings_to_create: the user already has this binding",
  // The store compares group names with PostgreSQL's lower(), which folds a few letters (final sigma) unlike JavaScript's.
  scim_group_mappings_uq: "body.mappings: the same mapping is listed twice (group names compared without case)",
};

/**
 * A database error a concurrent request can cause (a unique clash lost to a
 * parallel insert) as the 400 the same request would get when run alone; a
 * deadlock or serialization failure as a 503 to retry (nothing of it was kept);
 * a statement stopped at the deadline as the 504 the deadline answers, and one cancelled on the
 * server (an operator's pg_cancel_backend) as a 503 to retry. A foreign key a concurrent request
 * broke (a resource this one refers to deleted meanwhile), which the handlers check for where they
 * can, is a 409 should one slip past them.
 *
 * `request`, when known, is how long the request has run and its deadline (the pool's
 * statement_timeout): a statement stopped before the deadline cannot have been stopped by it.
 */
export function fromDatabaseError(error: unknown, request?: { elapsedMs: number; deadlineMs: number }): GatewayError | null {
  if (isStoreUnavailable(error)) return new GatewayError("unavailable", "the store is unavailable for a moment (restart or failover): retry shortly");
  const { code, constraint, message } = databaseError(error);
  // Text PostgreSQL cannot store (NUL, unpaired surrogates) that no validation caught.
  if (code === "22021" || code === "22P05") return new GatewayError("bad_request", "request: text must not contain NUL characters or unpaired surrogates");
  // A time the store cannot hold (a year past 9999, an offset past its range) that no validation caught.
  if (code === "22008" || code === "22009") return new GatewayError("bad_request", "request: a time falls outside what the store can hold (years 0001 to 9999 UTC)");
  // A deadlock or serialization failure with a concurrent request: this one was rolled back whole, and may run again.
  if (code === "40P01" || code === "40001") return new GatewayError("unavailable", "the request met a concurrent one changing the same data and was rolled back: retry shortly");
  // Stopped by the server: an operator's (or a tool's) cancel is no fault of the request's length; otherwise
  // it ran as long as the request deadline (the store's statement_timeout). A request stopped before its
  // deadline was cancelled, whatever language the server speaks; after it, the server's English text
  // still tells a cancel (another language's is answered as the deadline, which had passed anyway).
  if (code === "57014") {
    const beforeDeadline = request !== undefined && request.elapsedMs < request.deadlineMs;
    if (beforeDeadline || CANCELLED_BY_REQUEST.test(message)) return new GatewayError("unavailable", "the request's statement was cancelled on the database server (not by the request's deadline): retry shortly");
    return new GatewayError("timeout", "the request took longer than its deadline and was stopped");
  }
  if (code === "23503") return new GatewayError("conflict", "request: a resource it refers to was removed meanwhile, or one added meanwhile refers to what it removes");
  if (code !== "23505") return null;
  const known = constraint ? UNIQUE_FIELDS[constraint] : undefined;
  return new GatewayError("bad_request", known ?? "body: conflicts with an existing resource");
}

/** The unique constraint a database error clashed on, if that is what it is. */
export function uniqueClash(error: unknown): string | undefined {
  const { code, constraint } = databaseError(error);
  return code === "23505" ? constraint : undefined;
}

/** PostgreSQL's text for a statement stopped by pg_cancel_backend (or a client's cancel request), not by statement_timeout. */
const CANCELLED_BY_REQUEST = /canceling statement due to user request/;

/**
 * A driver's error code, constraint and message, on the error itself or on its cause (Drizzle wraps
 * them). The message is the driver's own: the cause's when wrapped, since the wrapper's repeats the
 * statement and its parameters, which are the request's data.
 */
function databaseError(error: unknown): { code?: unknown; constraint?: string; message: string } {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown; cause?: unknown } | undefined;
  const cause = e?.cause as { code?: unknown; constraint?: unknown; message?: unknown } | undefined;
  const constraint = e?.constraint ?? cause?.constraint;
  const message = cause ? cause.message : e?.message;
  return { code: e?.code ?? cause?.code, constraint: typeof constraint === "string" ? constraint : undefined, message: typeof message === "string" ? message : "" };
}
