import { afterEach, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "@/lib/env";

describe("the gateway's listening address", () => {
  const saved = process.env.HOST;
  afterEach(() => {
    if (saved === undefined) delete process.env.HOST;
    else process.env.HOST = saved;
    resetEnvCache();
  });

  it("is every interface unless HOST names one", () => {
    delete process.env.HOST;
    resetEnvCache();
    expect(env().HOST).toBe("0.0.0.0");
    process.env.HOST = " 127.0.0.1 ";
    resetEnvCache();
    expect(env().HOST).toBe("127.0.0.1");
  });

  it("refuses an empty HOST at startup, naming the variable", () => {
    process.env.HOST = "  ";
    resetEnvCache();
    expect(() => env()).toThrow(/^Invalid environment: HOST: expected an address to listen on/);
  });
});
