import { ServerResponse, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";

/**
 * The answers one turn of the event loop ends go to their sockets together, at the end of the
 * turn (its check phase, `setImmediate`), not each one as its handler ends it: the way Redis
 * writes its replies just before its event loop sleeps.
 *
 * Why: a client waiting for its answer sleeps, and the write that carries the answer wakes it.
 * On a virtual machine that wake-up is an interrupt between virtual CPUs, an exit to the
 * hypervisor paid inside the server's `writev`. A server busier than its clients paid it for
 * nearly every answer: 0.85 such interrupts per answer under the benchmark's load, against 0.04
 * for a bare route whose clients are the busier side. Written back to back, the answers of one
 * turn share the wake-up: 0.05 interrupts per answer, the gateway's CPU per answer 54 µs instead
 * of 81, its throughput 19,096 answers a second instead of 12,604, the bare route's unchanged
 * (README footnote 7).
 *
 * What it costs: an answer waits for the rest of its turn's synchronous work, until MAX_WAITING
 * answers wait. A statement of the embedded store (PGlite runs it in this thread, up to a tenth of
 * a second) first sends what waits (`sendWaitingAnswers`, run before each statement), and so does
 * a client closing its side of the connection, before Node ends the socket; a server that is not
 * busy has one answer per turn, which goes out as before. Everything else about an answer is
 * Node's: `end` keeps its arguments and its callback, and Node's own is only called later, or at
 * once when the answer is destroyed (@hono/node-server ends a failed answer with a 500, then
 * destroys it).
 */
export const CoalescedResponse = function CoalescedResponse(this: ServerResponse, request: IncomingMessage, options?: object) {
  // A constructor function as Node's own are, not a class: V8 kept compiling a class extending
  // ServerResponse and giving up ("dependency change", 691 times in a minute of load), its
  // compiler threads 11 % of the server's CPU against 3 % without it.
  (ServerResponse as unknown as (this: ServerResponse, request: IncomingMessage, options?: object) => void).call(this, request, options);
} as unknown as typeof ServerResponse;
Object.setPrototypeOf(CoalescedResponse.prototype, ServerResponse.prototype);
Object.setPrototypeOf(CoalescedResponse, ServerResponse);

const nodeEnd = ServerResponse.prototype.end as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
const nodeDestroy = ServerResponse.prototype.destroy as (this: ServerResponse, error?: Error) => ServerResponse;

CoalescedResponse.prototype.end = function end(this: ServerResponse, ...args: unknown[]) {
  waiting.push({ response: this, args });
  if (waiting.length >= MAX_WAITING) endWaiting();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(endWaiting);
  }
  return this;
} as ServerResponse["end"];

CoalescedResponse.prototype.destroy = function destroy(this: ServerResponse, error?: Error) {
  // An answer ended, then destroyed in the same turn, is written first, as it was before.
  const at = waiting.findIndex((entry) => entry.response === this);
  if (at !== -1) endNow(waiting.splice(at, 1)[0]!);
  return nodeDestroy.call(this, error);
} as ServerResponse["destroy"];

/**
 * Sends the answers waiting for the end of the turn, now. Run by the standalone gateway before
 * each statement of an embedded store, and when a client closes its side of a connection.
 */
export function sendWaitingAnswers(): void {
  if (waiting.length > 0) endWaiting();
}

/**
 * A server answering with CoalescedResponse: a client that closes its sending side gets the
 * answers waiting, before Node ends the socket (its `end` listener, which this one precedes).
 * Usually the end of a client's stream is read in a later turn than its request (libuv stops
 * reading at a partial read), after the answers went out; not when the request filled the read.
 */
export function sendWaitingOnClientEnd(server: Server): void {
  server.on("connection", (socket: Socket) => socket.prependListener("end", sendWaitingAnswers));
}

/** The most answers that wait for the end of a turn: the next one sends them all at once. */
export const MAX_WAITING = 32;

let waiting: Array<{ response: ServerResponse; args: unknown[] }> = [];
let scheduled = false;

function endWaiting(): void {
  const ending = waiting;
  waiting = [];
  scheduled = false;
  for (const entry of ending) endNow(entry);
}

function endNow({ response, args }: { response: ServerResponse; args: unknown[] }): void {
  try {
    nodeEnd.apply(response, args);
  } catch (error) {
    // What Node would have thrown to the caller (a body of the wrong type): that answer fails as
    // @hono/node-server fails one whose writing throws, said on stderr as it says it, and the
    // turn's other answers go out.
    console.error(error);
    nodeDestroy.call(response, error instanceof Error ? error : new Error(String(error)));
  }
}
