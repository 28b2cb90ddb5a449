import { z } from "zod";

/** The error body of every 4xx/5xx response. */
export const errorBodySchema = z
  .object({
    code: z.string().meta({ example: "400" }),
    message: z.string().meta({ example: "name: must not be empty" }),
    error_id: z.string(),
    reason: z.string().meta({ example: "bad_request" }),
  })
  .meta({ id: "ErrorBody" });

/** The error status object of the operations that declare a "default" response. */
export const rpcStatusSchema = z
  .object({
    code: z.number().int(),
    message: z.string(),
    details: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: "rpcStatus" });

/**
 * An array query parameter. Repeated names arrive as an array, a single one as a
 * string; `commaSeparated` also splits "a,b" (for parameters whose values never
 * hold commas).
 */
export function queryArray(options: { commaSeparated?: boolean; max?: number } = {}) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) => {
      const values = Array.isArray(v) ? v : [v];
      const split = options.commaSeparated ? values.flatMap((x) => x.split(",")) : values;
      return split.map((x) => x.trim()).filter((x) => x !== "");
    })
    .pipe(z.array(z.string().max(512)).max(options.max ?? 100))
    .optional()
    .meta({ type: "array", items: { type: "string" } } as never);
}

/** A boolean query parameter: true/false/1/0. */
export const queryBoolean = z
  .enum(["true", "false", "1", "0"], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1")
  .optional();

/** A non-empty identifier in a path or query. */
export const idSchema = z.string().trim().min(1, "must not be empty").max(128, "must be at most 128 characters");

/**
 * No control characters (\p{Cc}) and no format characters (\p{Cf}: bidi overrides and
 * isolates, zero-width spaces and joiners, soft hyphens), which make a name display as
 * another or hide text: every name and label the API accepts keeps to this.
 */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;
const PLAIN_TEXT_MESSAGE = "must not contain control characters or invisible formatting characters";

/** A display name: trimmed, 1 to 255 characters, no control or format characters. */
export const nameSchema = z
  .string({ message: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(PLAIN_TEXT, PLAIN_TEXT_MESSAGE);

/** A free-text label: trimmed, at most 255 characters, no control or format characters; may be empty. */
export const aliasSchema = z
  .string({ message: "must be a string" })
  .trim()
  .max(255, "must be at most 255 characters")
  .regex(PLAIN_TEXT, PLAIN_TEXT_MESSAGE);

export const emptySchema = z.object({}).meta({ id: "Empty" });

export type ErrorBody = z.infer<typeof errorBodySchema>;
