import { Agent, createServer, get, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CoalescedResponse, MAX_WAITING, sendWaitingAnswers, sendWaitingOnClientEnd } from "./coalesced-response";
import { listen } from "./server";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real server answering with CoalescedResponse; its base URL. */
async function start(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const s = createServer({ ServerResponse: CoalescedResponse }, handler);
  sendWaitingOnClientEnd(s);
  server = s;
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** A GET on a connection of its own: the status and body, or the error the socket ended with. */
function fetchOnce(url: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = get(url, { agent: new Agent({ keepAlive: false }) }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", (error) => resolve({ error: error.message }));
    });
    request.on("error", (error) => resolve({ error: error.message }));
  });
}

const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("CoalescedResponse", () => {
  it("takes every form of end Node takes, and calls back when written", async () => {
    const calledBack: string[] = [];
    const base = await start((request, response) => {
      const path = request.url ?? "";
      const done = () => calledBack.push(path);
      if (path === "/none") response.end();
      else if (path === "/callback") response.end(done);
      else if (path === "/text") response.end("hello");
      else if (path === "/text-callback") response.end("hi there", done);
      else if (path === "/encoded") response.end("aGVsbG8=", "base64", done);
      else response.end(Buffer.from("bytes"));
    });
    const answers = await Promise.all(["/none", "/callback", "/text", "/text-callback", "/encoded", "/bytes"].map((p) => fetchOnce(base + p)));
    expect(answers).toEqual([
      { status: 200, body: "" },
      { status: 200, body: "" },
      { status: 200, body: "hello" },
      { status: 200, body: "hi there" },
      { status: 200, body: "hello" },
      { status: 200, body: "bytes" },
    ]);
    expect(calledBack.sort()).toEqual(["/callback", "/encoded", "/text-callback"]);
  });

  it("writes an answer at the end of the turn it was ended in, not at once", async () => {
    const seen: Array<[string, boolean]> = [];
    const base = await start((_request, response) => {
      response.end("later");
      seen.push(["when ended", response.writableEnded]);
      void turnEnd().then(() => seen.push(["after the turn", response.writableEnded]));
    });
    expect(await fetchOnce(`${base}/`)).toEqual({ status: 200, body: "later" });
    expect(seen).toEqual([
      ["when ended", false],
      ["after the turn", true],
    ]);
  });

  it(`sends a turn's answers together, never more than ${MAX_WAITING} waiting, and one that cannot be written fails alone`, async () => {
    const count = MAX_WAITING + 3;
    const held: ServerResponse[] = [];
    const endedWhenEnding: boolean[] = [];
    const base = await start((_request, response) => {
      held.push(response);
      if (held.length < count) return;
      // Every answer ended in one turn. The one at BROKEN has a body Node refuses.
      held.forEach((r, i) => {
        if (i === BROKEN) r.end(42 as never);
        else r.end(`answer ${i}`);
        endedWhenEnding.push(r.writableEnded);
      });
    });
    const BROKEN = 5;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    let loggedCalls: unknown[][] = [];
    const answers = await Promise.all(Array.from({ length: count }, () => fetchOnce(`${base}/`))).finally(() => {
      loggedCalls = [...logged.mock.calls];
      logged.mockRestore();
    });
    // Said on stderr, as @hono/node-server says a failure to write an answer.
    expect(loggedCalls).toEqual([[expect.objectContaining({ code: "ERR_INVALID_ARG_TYPE" })]]);
    // The first MAX_WAITING - 1 waited; the one that filled the batch sent it at once, itself
    // included; the rest waited for the end of the turn.
    const expected = Array.from({ length: count }, (_, i) => (i === BROKEN ? "broken" : i === MAX_WAITING - 1));
    expect(endedWhenEnding.map((ended, i) => (i === BROKEN ? "broken" : ended))).toEqual(expected);
    const bodies = answers.map((a) => ("body" in a ? a.body : "failed"));
    expect(bodies.filter((b) => b === "failed")).toHaveLength(1);
    expect(new Set(bodies.filter((b) => b !== "failed"))).toEqual(new Set(Array.from({ length: count }, (_, i) => `answer ${i}`).filter((_, i) => i !== BROKEN)));
    expect(held[BROKEN]!.destroyed).toBe(true);
  });

  it("sends what waits when asked, before the turn ends", async () => {
    let endedWhenAsked: boolean | undefined;
    const base = await start((_request, response) => {
      response.end("now");
      sendWaitingAnswers();
      endedWhenAsked = response.writableEnded;
    });
    expect(await fetchOnce(`${base}/`)).toEqual({ status: 200, body: "now" });
    expect(endedWhenAsked).toBe(true);
  });

  it("writes an answer ended, then destroyed in the same turn (a failed answer's 500), before destroying it", async () => {
    const base = await start((_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end("Error: it broke");
      response.destroy();
    });
    expect(await fetchOnce(`${base}/`)).toEqual({ status: 500, body: "Error: it broke" });
  });

  it("answers a client that closes its side right after its request", async () => {
    const base = await start((_request, response) => response.end("still here"));
    const { port } = new URL(base);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.end("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.endsWith("\r\n\r\nstill here")).toBe(true);
  });

  it("is what the gateway's server answers with", async () => {
    const app = new Hono();
    let answeredWith: unknown;
    app.get("/", (c) => {
      answeredWith = (c.env as { outgoing: unknown }).outgoing;
      return c.json({ ok: true });
    });
    const s = listen(app.fetch, { port: 0, hostname: "127.0.0.1" }) as Server;
    server = s;
    await new Promise<void>((resolve) => (s.listening ? resolve() : s.once("listening", () => resolve())));
    const answer = await fetchOnce(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`);
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    expect(answeredWith).toBeInstanceOf(CoalescedResponse);
  });
});
