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

describe("the remote gateway's URL (CLOUD_API_URL)", () => {
  const saved = { url: process.env.CLOUD_API_URL, nodeEnv: process.env.NODE_ENV };
  afterEach(() => {
    if (saved.url === undefined) delete process.env.CLOUD_API_URL;
    else process.env.CLOUD_API_URL = saved.url;
    (process.env as Record<string, string | undefined>).NODE_ENV = saved.nodeEnv;
    resetEnvCache();
  });
  const parsed = (url: string, nodeEnv = "production") => {
    process.env.CLOUD_API_URL = url;
    (process.env as Record<string, string | undefined>).NODE_ENV = nodeEnv;
    resetEnvCache();
    return () => env().CLOUD_API_URL;
  };

  it("takes https anywhere, a path prefix included, and plain http to this machine's loopback", () => {
    for (const url of ["https://api.example.com", "https://edge.example.com/platform/", "http://127.0.0.1:8080/", "http://[::1]:8080", "http://localhost:8080"]) {
      expect(parsed(url)(), url).toBe(url);
    }
    expect(parsed("http://gateway.internal:8080", "development")()).toBe("http://gateway.internal:8080");
  });

  it("refuses, naming the variable, what it must not hold", () => {
    const cases: Array<[string, RegExp]> = [
      ["http://gateway.internal:8080", /must be https:\/\/ in production/],
      ["https://ops:secret@api.example.com", /must not hold a user name or password/],
      ["https://api.example.com/?tenant=1", /must not hold a query or fragment/],
      ["https://api.example.com/#x", /must not hold a query or fragment/],
      ["ftp://api.example.com", /expected an https:\/\/ URL/],
      ["api.example.com", /expected the gateway's URL/],
    ];
    for (const [url, message] of cases) expect(parsed(url), url).toThrow(new RegExp(`CLOUD_API_URL: ${message.source}`));
  });

  it("never repeats a password it refuses", () => {
    expect(parsed("https://ops:pw-not-for-logs@api.example.com")).toThrow(/^(?!.*pw-not-for-logs)/s);
  });
});

describe("the store's connection string", () => {
  const saved = process.env.DATABASE_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    resetEnvCache();
  });
  const check = (value: string) => {
    process.env.DATABASE_URL = value;
    resetEnvCache();
    return () => env();
  };

  it("takes a host, a formation's hosts, a Unix socket's directory, and node-postgres's socket: form", () => {
    for (const value of [
      "postgres://stratus:p%40ss@db1:5432/stratus",
      "postgresql://stratus@db1:5432,db2:5432/stratus?target_session_attrs=read-write&sslmode=verify-full",
      "postgres:///stratus?host=/run/postgresql",
      "socket:/run/postgresql?db=stratus",
    ]) {
      expect(check(value), value).not.toThrow();
    }
  });

  it("refuses another scheme (a host written without one is read as a scheme) and says why a formation's attributes cannot be honoured", () => {
    expect(check("db.internal:5432/stratus")).toThrow(/^Invalid environment: DATABASE_URL: expected postgres:\/\//);
    expect(check("mysql://db/stratus")).toThrow(/DATABASE_URL: expected postgres:\/\//);
    expect(check("postgres://db1,db2/stratus?target_session_attrs=primary")).toThrow(/DATABASE_URL: target_session_attrs=primary is not supported/);
  });
});
