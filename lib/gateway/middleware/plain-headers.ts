import type { Context } from "hono";

type HeaderRecord = Record<string, string | string[]>;
type Body = ConstructorParameters<typeof Response>[0];

/** What a body without a Content-Type is sent as (the server's own default). */
const DEFAULT_CONTENT_TYPE = "text/plain; charset=UTF-8";

/**
 * Gives every answer made through the context (`c.body`, `c.json`) the frame's headers as one
 * plain object, made as the answer is made.
 *
 * Hono keeps headers set before the answer (`c.header`) in a WHATWG Headers object, and
 * @hono/node-server turns that back into a plain object for each answer, sorted and checked
 * again, while an answer made with plain headers goes to the socket as it is. For a signed read
 * answered from memory that round trip was a seventh of the gateway's time per request
 * (`npm run bench`, gateway throughput: 5 µs of 35 µs of CPU per request).
 *
 * Everything else still works as Hono has it: a header appended or removed, an answer given
 * a ResponseInit, or one made another way (a redirect, a default 404) leaves the plain path,
 * and `sealPlainHeaders` then gives that answer the headers Hono's own way.
 */
export function plainHeaders(c: Context, headers: Record<string, string>): void {
  const framed = c as Framed;
  framed[STATE] = { plain: headers, status: undefined, made: undefined, header: c.header, body: c.body as BodyOf, setStatus: c.status };
  // Functions shared by every request (reading their state off the context), not closures made per request.
  const methods = c as unknown as Record<"header" | "body" | "json" | "status", unknown>;
  methods.header = header;
  methods.body = body;
  methods.json = json;
  methods.status = status;
}

/** After the work: an answer the plain path did not make gets the headers through Hono (which reopens it). */
export function sealPlainHeaders(c: Context): void {
  const state = (c as Framed)[STATE];
  if (state.plain !== null && c.res !== state.made) leave(state);
}

const STATE = Symbol("plain headers");

type BodyOf = (data: Body, arg?: number | ResponseInit, headers?: HeaderRecord) => Response;

interface PlainState {
  /** The headers so far, while the plain path is taken. */
  plain: Record<string, string> | null;
  status: number | undefined;
  /** The last answer the plain path made. */
  made: Response | undefined;
  /** Hono's own. */
  header: Context["header"];
  body: BodyOf;
  setStatus: Context["status"];
}

type Framed = Context & { [STATE]: PlainState };

/** Off the plain path for the rest of the request: what was set so far goes to Hono's headers. */
function leave(state: PlainState): void {
  const pending = state.plain;
  state.plain = null;
  if (pending) for (const name in pending) state.header(name, pending[name]);
}

function header(this: Framed, name: string, value?: string, options?: { append?: boolean }): void {
  const state = this[STATE];
  if (state.plain && value !== undefined && !options?.append && !this.finalized) {
    state.plain[name.toLowerCase()] = value;
    return;
  }
  leave(state);
  state.header(name, value, options);
}

function body(this: Framed, data: Body, arg?: number | ResponseInit, extra?: HeaderRecord): Response {
  const state = this[STATE];
  if (state.plain && (arg === undefined || typeof arg === "number") && (extra === undefined || onlyStrings(extra))) {
    // The answer is given the object itself, as Hono gives its own answers the Headers it kept.
    const headers = state.plain;
    if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name] as string;
    if (data !== null && data !== undefined) headers["content-type"] ??= DEFAULT_CONTENT_TYPE;
    return (state.made = new Response(data, { status: arg ?? state.status ?? 200, headers }));
  }
  leave(state);
  return state.body(data, arg, extra);
}

function json(this: Framed, object: unknown, arg?: number | ResponseInit, extra?: HeaderRecord): Response {
  const headers: HeaderRecord = { "content-type": "application/json" };
  if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name] as string | string[];
  return body.call(this, JSON.stringify(object), arg, headers);
}

function status(this: Framed, code: number): void {
  const state = this[STATE];
  state.status = code;
  (state.setStatus as (code: number) => void)(code);
}

function onlyStrings(record: HeaderRecord): record is Record<string, string> {
  for (const name in record) if (typeof record[name] !== "string") return false;
  return true;
}
