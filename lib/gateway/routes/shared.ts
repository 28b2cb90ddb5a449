import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { z } from "zod";
import { errorBodySchema, rpcStatusSchema } from "@/lib/contract/common";
import { operations, type OperationId } from "@/lib/contract/operations";
import type { AppEnv } from "../context";
import type { BodyParts } from "../store/queries/usage-days";

export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;

const ERROR_DESCRIPTIONS = {
  400: "bad request",
  401: "authentication error",
  403: "permissions error",
  404: "not found",
  409: "conflict",
  500: "server error",
} as const;

type ErrorCode = keyof typeof ERROR_DESCRIPTIONS;

/** A route's operationId, method and path, from the operations table (lib/contract/operations.ts). */
export function operation<Id extends OperationId>(id: Id): { operationId: Id } & (typeof operations)[Id] {
  return { operationId: id, ...operations[id] };
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** The declared error responses of an operation, in the spec's status column. */
export function errors<C extends ErrorCode>(...codes: C[]): Record<C, ReturnType<typeof json<typeof errorBodySchema>>> {
  return Object.fromEntries(codes.map((code) => [code, json(errorBodySchema, ERROR_DESCRIPTIONS[code])])) as never;
}

export const defaultError = { default: json(rpcStatusSchema, "error status object") };

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

export const emptyOk = { description: "empty response" };

/** A Date as RFC 3339 UTC. */
export const iso = (d: Date | null | undefined): string => (d ? d.toISOString() : "");

/** JSON text of a value of type T: an answer made once and kept (in the read cache). */
export type JsonText<T> = string & { readonly __jsonOf?: T };

export function toJsonText<T>(value: T): JsonText<T> {
  return JSON.stringify(value) as JsonText<T>;
}

/** Answers 200 with JSON text made earlier, typed as the value it was made from. */
export function jsonTextAnswer<T>(c: Context, text: JsonText<T>): TypedResponse<T, 200, "json"> {
  return c.body(text, 200, { "Content-Type": "application/json" }) as unknown as TypedResponse<T, 200, "json">;
}

/**
 * Answers 200 with JSON the store wrote: text, or bytes in parts sent one after another (with
 * Content-Length), never joined (see joinedDays in store/queries/usage-days.ts).
 */
export function jsonPartsAnswer(c: Context, body: string | BodyParts): Response {
  if (typeof body === "string") return c.body(body, 200, { "Content-Type": "application/json" });
  let next = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (next < body.parts.length) controller.enqueue(body.parts[next++]!);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(stream, 200, { "Content-Type": "application/json", "Content-Length": String(body.length) });
}
