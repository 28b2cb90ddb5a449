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
    details: z.array(
      // A protobuf Any: the type URL of the detail, beside the detail's own fields.
      z.object({ "@type": z.string().optional() }).catchall(z.unknown()).meta({ id: "protobufAny" }),
    ),
  })
  .meta({ id: "rpcStatus" });

/**
 * An array of a request body. Go clients marshal an empty slice as `null`, so `null`
 * reads as the empty list, and the array's own rules (a minimum length, say) then apply;
 * with `absent`, so does a missing one (a client whose field is `omitempty` sends none).
 * The document shows the plain array.
 */
export function bodyArray<T extends z.ZodArray>(schema: T, options: { absent?: boolean } = {}) {
  return z.preprocess((value: z.input<T> | null | undefined) => (value === null || (options.absent && value === undefined) ? [] : value), schema);
}

/**
 * How the document says an array query parameter is written. The upstream declares most
 * of its lists comma-separated (Swagger's `collectionFormat: csv`, which its generated
 * clients send as one `a,b` value): OpenAPI's `style: form, explode: false`. A few
 * (usage) repeat the name once per value: `explode: true`. The gateway reads both forms
 * of a comma-separated list either way.
 */
export const COMMA_SEPARATED = { style: "form", explode: false } as const;
export const REPEATED = { style: "form", explode: true } as const;

/**
 * An array query parameter. Repeated names arrive as an array, a single one as a
 * string; `commaSeparated` also splits "a,b" (for parameters whose values never
 * hold commas), and documents the list as comma-separated.
 */
export function queryArray(options: { commaSeparated?: boolean; max?: number } = {}) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) => {
      const values = Array.isArray(v) ? v : [v];
      const split = options.commaSeparated ? values.flatMap((x) => x.split(",")) : values;
      return split.map((x) => x.trim()).filter((x) => x !== "");
    })
    .pipe(z.array(z.string().max(512, "must be at most 512 characters each")).max(options.max ?? 100, `must hold at most ${options.max ?? 100} values`))
    .optional()
    .meta({ type: "array", items: { type: "string" }, param: options.commaSeparated ? COMMA_SEPARATED : REPEATED } as never);
}

/** A boolean query parameter: true/false, and 1/0. */
export const queryBoolean = z
  .enum(["true", "false", "1", "0"], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1")
  .optional()
  .meta({ type: "boolean" } as never);

/** A string the request must carry: "is required" when it is absent, "must be a string" when it is something else. */
export const requiredString = () => z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") });

/** A non-empty identifier in a path or query. */
export const idSchema = z.string().trim().min(1, "must not be empty").max(128, "must be at most 128 characters");

/**
 * No control characters (\p{Cc}) and no format characters (\p{Cf}: bidi overrides and
 * isolates, zero-width spaces and joiners, soft hyphens), which make a name display as
 * another or hide text: every name and label the API accepts keeps to this. (Half of a surrogate pair, which no
 * encoding can store, the gateway refuses in any value it is sent, with a message of its own.)
 */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;
const PLAIN_TEXT_MESSAGE = "must not contain control characters or invisible formatting characters";

/** A string schema held to that rule (a free-text field that is no name: a company, an address line). */
export const plainText = (schema: z.ZodString): z.ZodString => schema.regex(PLAIN_TEXT, PLAIN_TEXT_MESSAGE);

/**
 * Whether a name or label keeps to that rule, and holds no half of a surrogate pair (\p{Cs}): what reaches the
 * store without the gateway's check (a server action's argument, an identity provider's claim) would be written
 * with U+FFFD in its place, a name other than sent.
 */
export const isPlainText = (value: string): boolean => PLAIN_TEXT.test(value) && !/\p{Cs}/u.test(value);

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
