import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { checkConsoleConfiguration } from "./startup-check";

describe("the console's start", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetEnvCache();
    vi.restoreAllMocks();
  });

  it("stops on a bad value, naming the variable and not repeating it, before any request", () => {
    process.env.STRATUS_SESSION_IDLE_MINUTES = "0";
    resetEnvCache();
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const said = vi.spyOn(console, "error").mockImplementation(() => undefined);
    checkConsoleConfiguration();
    expect(exit).toHaveBeenCalledWith(1);
    expect(said.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/^the console cannot start: Invalid environment: STRATUS_SESSION_IDLE_MINUTES: /)]);
  });

  it.each([
    ["unset", undefined, /NEXTAUTH_URL is not set/],
    ["plain http on another host", "http://console.initech.example", /http:\/\/ on console\.initech\.example/],
    ["https", "https://console.initech.example", null],
    ["HTTPS in capitals", "HTTPS://console.initech.example", null],
    ["http on this machine", "http://localhost:3000", null],
    ["http on a loopback address", "http://127.0.0.1:3100", null],
  ])("in production, says when the session cookies go without Secure (NEXTAUTH_URL %s), and goes on", (_name, url, said) => {
    Object.assign(process.env, { NODE_ENV: "production", AUTH_SECRET: "a-production-secret-of-at-least-32-characters" });
    if (url === undefined) delete process.env.NEXTAUTH_URL;
    else process.env.NEXTAUTH_URL = url;
    resetEnvCache();
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    checkConsoleConfiguration();
    expect(exit).not.toHaveBeenCalled();
    if (said) expect(warned.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(said)]);
    else expect(warned).not.toHaveBeenCalled();
  });

  it("goes on when the configuration holds", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    checkConsoleConfiguration();
    expect(exit).not.toHaveBeenCalled();
  });
});
