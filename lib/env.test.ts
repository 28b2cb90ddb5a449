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

describe("the private networks an OpenID provider may be at", () => {
  const saved = process.env.STRATUS_OIDC_PRIVATE_NETWORKS;
  afterEach(() => {
    if (saved === undefined) delete process.env.STRATUS_OIDC_PRIVATE_NETWORKS;
    else process.env.STRATUS_OIDC_PRIVATE_NETWORKS = saved;
    resetEnvCache();
  });

  it("are none unless named, and a list of CIDR ranges when named", () => {
    delete process.env.STRATUS_OIDC_PRIVATE_NETWORKS;
    resetEnvCache();
    expect(env().STRATUS_OIDC_PRIVATE_NETWORKS).toEqual([]);
    process.env.STRATUS_OIDC_PRIVATE_NETWORKS = " 10.20.0.0/16, fd00:1::/64 ,10.30.1.5";
    resetEnvCache();
    expect(env().STRATUS_OIDC_PRIVATE_NETWORKS).toEqual(["10.20.0.0/16", "fd00:1::/64", "10.30.1.5"]);
  });

  it("refuse anything but CIDR ranges at startup, naming the variable", () => {
    process.env.STRATUS_OIDC_PRIVATE_NETWORKS = "10.20.0.0/16,intranet";
    resetEnvCache();
    expect(() => env()).toThrow(/^Invalid environment: STRATUS_OIDC_PRIVATE_NETWORKS\.1: expected CIDR ranges or addresses separated by commas/);
  });
});
