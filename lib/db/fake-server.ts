import { createServer, type AddressInfo, type Server, type Socket } from "node:net";

/* For tests only: a stand-in for a PostgreSQL server that misbehaves in the ways a real one cannot be made to. */

/**
 * How a fake server (below) treats a connection: `silent` answers nothing at all; `mute` lets the session start and then
 * answers no statement; `writable` answers every statement as a primary answers `show transaction_read_only` (off);
 * `standby` answers that statement as a standby does (on), and refuses any other as a read-only transaction (25006).
 */
export type Manner = "silent" | "mute" | "writable" | "standby";

/** PostgreSQL's protocol, as far as a client's session start and one simple query go. */
function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "ascii");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
const int32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
const int16 = (n: number) => Buffer.from([(n >>> 8) & 255, n & 255]);
const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8");
const READY = message("Z", Buffer.from("I"));
const readOnly = (value: "on" | "off") =>
  Buffer.concat([
    message("T", Buffer.concat([int16(1), cstring("transaction_read_only"), int32(0), int16(0), int32(25), int16(0xffff), int32(0xffffffff), int16(0)])),
    message("D", Buffer.concat([int16(1), int32(value.length), Buffer.from(value)])),
    message("C", cstring("SHOW")),
    READY,
  ]);
const REFUSED = Buffer.concat([
  message("E", Buffer.concat([cstring("SERROR"), cstring("C25006"), cstring("Mcannot execute INSERT in a read-only transaction"), Buffer.from([0])])),
  READY,
]);

/**
 * A server that speaks just enough of PostgreSQL's protocol to start a session (no TLS, no password) and answer a
 * statement, in the manner `manner` gives each connection (by its number, from 0), on a loopback port or a Unix socket.
 * `demote()` makes it a standby, for the connections it has as for new ones (as a primary fenced without a restart is).
 */
export async function fakeServer(manner: (n: number) => Manner, socketFile?: string): Promise<{ port: number; sockets: Set<Socket>; connections: () => number; demote: () => void; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  let demoted = false;
  const server: Server = createServer((socket) => {
    const how = manner(count++);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    if (how === "silent") return;
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
          buffered = buffered.subarray(buffered.readInt32BE(0));
          started = true;
          socket.write(Buffer.concat([message("R", int32(0)), READY]));
          continue;
        }
        if (buffered.length < 5 || buffered.length < 1 + buffered.readInt32BE(1)) return;
        const type = String.fromCharCode(buffered[0]!);
        const text = buffered.subarray(5, 1 + buffered.readInt32BE(1)).toString("utf8").replace(/\0$/, "");
        buffered = buffered.subarray(1 + buffered.readInt32BE(1));
        if (type === "X") return void socket.end();
        if (type !== "Q" || how === "mute") continue;
        if (how === "writable" && !demoted) socket.write(readOnly("off"));
        else socket.write(/^show transaction_read_only$/i.test(text) ? readOnly("on") : REFUSED);
      }
    });
  });
  await new Promise<void>((resolve) => (socketFile ? server.listen(socketFile, resolve) : server.listen(0, "127.0.0.1", resolve)));
  return {
    port: socketFile ? 0 : (server.address() as AddressInfo).port,
    sockets,
    /** How many connections it has taken so far. */
    connections: () => count,
    demote: () => {
      demoted = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
