import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installRequestGuard } from "./client-address";

/** A plain Node server, as Next.js reads a request (its headers object), behind the request guard. */
let server: http.Server;
let port = 0;
beforeAll(async () => {
  installRequestGuard();
  server = http.createServer((req, res) => res.end(req.headers.authorization ?? "(none)"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The body answered to a request written by hand (fetch cannot send a header twice). */
function rawRequest(headerLines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(["GET / HTTP/1.1", "Host: guard.test", ...headerLines, "Connection: close", "", ""].join("\r\n")));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("end", () => resolve(answer.slice(answer.indexOf("\r\n\r\n") + 4)));
    socket.on("error", reject);
  });
}

describe("the request guard", () => {
  it("joins repeated Authorization headers, as the standalone gateway's adapter does, so both servers see both credentials", async () => {
    expect(await rawRequest(["Authorization: Bearer 1.0:AKFIRST:aaa", "authorization: Bearer 1.0:AKSECOND:bbb"])).toBe("Bearer 1.0:AKFIRST:aaa, Bearer 1.0:AKSECOND:bbb");
  });

  it("leaves a single Authorization header, and a request without one, as they are", async () => {
    expect(await rawRequest(["Authorization: Bearer 1.0:AKONE:aaa"])).toBe("Bearer 1.0:AKONE:aaa");
    expect(await rawRequest([])).toBe("(none)");
  });
});
