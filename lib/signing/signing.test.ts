import { describe, expect, it } from "vitest";
import { canonicalQuery, queryEscape } from "./canonical-query";
import { authorizationHeader, parseRfc3339, sign, verify, type VerifyOptions } from "./signature";

const SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

describe("canonical query", () => {
  it("sorts by name, keeps the order of repeated names, escapes as Go does", () => {
    expect(
      canonicalQuery(
        "limit=20&actor_types=Platform%20Admin&actions=Create&target_names=a%2Bb%2Fc%2Cd&actions=Update",
      ),
    ).toBe("actions=Create&actions=Update&actor_types=Platform+Admin&limit=20&target_names=a%2Bb%2Fc%2Cd");
    expect(canonicalQuery("?project_name=caf%C3%A9%20%E2%98%81&org_id=o-1")).toBe(
      "org_id=o-1&project_name=caf%C3%A9+%E2%98%81",
    );
  });

  it("is empty without a query", () => {
    expect(canonicalQuery("")).toBe("");
    expect(canonicalQuery("?")).toBe("");
  });

  it("leaves only A-Za-z0-9-_.~ bare", () => {
    expect(queryEscape("a-b_c.d~e!f'g(h)i*j k")).toBe("a-b_c.d~e%21f%27g%28h%29i%2Aj+k");
  });

  it("treats + as a space and keeps a malformed escape as written", () => {
    expect(canonicalQuery("q=a+b")).toBe("q=a+b");
    expect(canonicalQuery("q=%zz")).toBe("q=%25zz");
  });
});

describe("sign: the issue's vectors", () => {
  it("GET /v1/locations", () => {
    expect(sign(SECRET, { method: "GET", path: "/v1/locations", query: "", timestamp: "2026-01-02T03:04:05Z" })).toBe(
      "CPsjGs5sDKOcIfhVi3z8don1pOu94ycwBumXAnxM2Eo",
    );
  });
  it("GET audit logs on /v1alpha5 with repeated and escaped values", () => {
    expect(
      sign(SECRET, {
        method: "GET",
        path: "/v1alpha5/organizations/8f1c2a9e-0000-4000-8000-000000000001/audit-logs",
        query: "limit=20&actor_types=Platform%20Admin&actions=Create&target_names=a%2Bb%2Fc%2Cd&actions=Update",
        timestamp: "2026-01-02T03:04:05+00:00",
      }),
    ).toBe("KZ-S_n2MS2l6aut0PN2mfCiWFP_vP-4tdQp2IUYu1do");
  });
  it("POST /v1/organizations/projects", () => {
    expect(
      sign(SECRET, { method: "POST", path: "/v1/organizations/projects", query: "", timestamp: "2026-01-02T03:04:05.123Z" }),
    ).toBe("5vzFXPqHd8KhrJoDKm_hZv140ELRH9Dhramk9ZD9TG0");
  });
  it("GET projects with a unicode name", () => {
    expect(
      sign(SECRET, {
        method: "GET",
        path: "/v1/organizations/projects",
        query: "project_name=caf%C3%A9%20%E2%98%81&org_id=o-1",
        timestamp: "2026-01-02T03:04:05Z",
      }),
    ).toBe("DUNmVgKJpsmTFqT1SWp25Zjkh7Kb-6d23OrfuCT8QGE");
  });
});

describe("parseRfc3339", () => {
  it("accepts offsets and fractions, rejects other forms", () => {
    expect(parseRfc3339("2026-01-02T03:04:05Z")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseRfc3339("2026-01-02T05:04:05+02:00")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parseRfc3339("2026-01-02T03:04:05.123456789Z")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 123));
    expect(parseRfc3339("2026-01-02T03:04:05.5Z")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 500));
    expect(parseRfc3339("2026-01-02t03:04:05.123456z")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 123));
    expect(parseRfc3339("2026-01-02T05:04:05.250+02:00")).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 250));
    for (const bad of ["2026-01-02 03:04:05Z", "2026-01-02T03:04:05", "yesterday", "1767323045", "2026-13-02T03:04:05Z"]) {
      expect(parseRfc3339(bad)).toBeNull();
    }
  });
});

describe("verify", () => {
  const ts = "2026-01-02T03:04:05Z";
  const now = Date.UTC(2026, 0, 2, 3, 4, 5);
  const request = { method: "GET", path: "/v1/locations", query: "a=1&b=2" };
  const good = sign(SECRET, { ...request, timestamp: ts });
  const base: VerifyOptions<string> = {
    ...request,
    authorization: authorizationHeader("AK1", good),
    timestamp: ts,
    now,
    lookupKey: async (id) => (id === "AK1" ? { secret: SECRET, key: "user-1" } : null),
  };

  it("accepts a good signature and returns the key", async () => {
    expect(await verify(base)).toEqual({ ok: true, key: "user-1" });
    // query order does not matter
    expect((await verify({ ...base, query: "b=2&a=1" })).ok).toBe(true);
  });

  it.each([
    ["missing header", { authorization: undefined }, "missing_authorization"],
    ["not bearer", { authorization: `Basic 1.0:AK1:${good}` }, "malformed_authorization"],
    ["two parts", { authorization: `Bearer 1.0:${good}` }, "malformed_authorization"],
    ["short signature", { authorization: "Bearer 1.0:AK1:abc" }, "malformed_authorization"],
    ["version 2.0", { authorization: `Bearer 2.0:AK1:${good}` }, "unsupported_signature_version"],
    ["unknown key", { authorization: `Bearer 1.0:AK2:${good}` }, "unknown_key"],
    ["missing timestamp", { timestamp: undefined }, "missing_timestamp"],
    ["unparsable timestamp", { timestamp: "Fri, 02 Jan 2026 03:04:05 GMT" }, "invalid_timestamp"],
    ["stale", { now: now + 301_000 }, "timestamp_out_of_window"],
    ["future", { now: now - 301_000 }, "timestamp_out_of_window"],
    ["other path", { path: "/v1alpha5/locations" }, "bad_signature"],
    ["other query", { query: "a=1&b=3" }, "bad_signature"],
    ["other method", { method: "POST" }, "bad_signature"],
    ["other timestamp", { timestamp: "2026-01-02T03:04:06Z" }, "bad_signature"],
  ] as const)("rejects: %s", async (_name, change, reason) => {
    expect(await verify({ ...base, ...change })).toEqual({ ok: false, reason });
  });

  it("rejects a signature made with another secret", async () => {
    const other = sign("BBECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", { ...request, timestamp: ts });
    expect(await verify({ ...base, authorization: authorizationHeader("AK1", other) })).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("verifies with whichever secret the lookup returns now (decoded keys are cached by secret)", async () => {
    const rotated = "BBECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    expect((await verify(base)).ok).toBe(true);
    const afterRotation = { ...base, lookupKey: async () => ({ secret: rotated, key: "user-1" }) };
    expect(await verify(afterRotation)).toEqual({ ok: false, reason: "bad_signature" });
    const signedWithNew = authorizationHeader("AK1", sign(rotated, { ...request, timestamp: ts }));
    expect((await verify({ ...afterRotation, authorization: signedWithNew })).ok).toBe(true);
    expect(await verify({ ...base, authorization: signedWithNew })).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("honours a configured window", async () => {
    expect((await verify({ ...base, now: now + 60_000, skewSeconds: 30 })).ok).toBe(false);
    expect((await verify({ ...base, now: now + 20_000, skewSeconds: 30 })).ok).toBe(true);
  });
});
