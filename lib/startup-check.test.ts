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

  it("goes on when the configuration holds", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    checkConsoleConfiguration();
    expect(exit).not.toHaveBeenCalled();
  });
});
