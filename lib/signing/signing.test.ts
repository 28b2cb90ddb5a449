import { createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalQuery, queryEscape } from "./canonical-query";
import {
  authorizationHeader,
  parseAuthorization,
  parseRfc3339,
  requestTimestamp,
  sign,
  signedHeaders,
  signingPayload,
  TIMESTAMP_HEADER,
  UPSTREAM_TIMESTAMP_HEADER,
  verify,
  type VerifyOptions,
} from "./signature";

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

/** The parse written out plainly: the pattern, the field ranges, then Date.parse. */
function referenceRfc3339(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/.exec(value);
  if (!m) return null;
  const [mo, d, h, mi, s] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, "$1").replace(/t/, "T").replace(/z$/, "Z"));
  return Number.isNaN(ms) ? null : ms;
}

describe("parseRfc3339 against the plain parse", () => {
  const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, "0"));
  const timestamp = fc
    .tuple(
      digits(4, 9999),
      digits(2, 13),
      digits(2, 32),
      fc.constantFrom("T", "t", " ", "X"),
      digits(2, 24),
      digits(2, 60),
      digits(2, 61),
      fc.oneof(fc.constant(""), fc.stringMatching(/^\.\d{0,11}$/)),
      fc.oneof(fc.constantFrom("Z", "z", "", "+", "Zz"), fc.tuple(fc.constantFrom("+", "-"), digits(2, 25), digits(2, 61)).map(([sign, h, m]) => `${sign}${h}:${m}`)),
    )
    .map(([y, mo, d, t, h, mi, s, fraction, zone]) => `${y}-${mo}-${d}${t}${h}:${mi}:${s}${fraction}${zone}`);

  it("agrees on every shape and range, valid or not", () => {
    fc.assert(
      fc.property(timestamp, (value) => {
        expect(parseRfc3339(value)).toBe(referenceRfc3339(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("agrees on what clients send: Go's RFC3339 and RFC3339Nano, JavaScript's toISOString, offsets", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("0101-01-01T00:00:00Z"), max: new Date("9998-12-31T23:59:59Z"), noInvalidDate: true }), fc.integer({ min: -14 * 60, max: 14 * 60 }), (date, offset) => {
        const iso = date.toISOString();
        const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 19);
        const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
        for (const value of [iso, iso.replace(/\.\d+Z$/, "Z"), iso.replace("Z", "456789Z"), `${local}${zone}`, `${local}.5${zone}`]) {
          expect(parseRfc3339(value), value).toBe(referenceRfc3339(value));
        }
        expect(parseRfc3339(`${local}${zone}`)).toBe(Math.floor(date.getTime() / 1000) * 1000);
      }),
      { numRuns: 5_000 },
    );
  });

  it("leaves two-digit years and leap seconds to the plain parse", () => {
    for (const value of ["0000-01-01T00:00:00Z", "0099-12-31T23:59:59Z", "2026-01-02T23:59:60Z", "2026-01-02T03:04:05+24:00"]) {
      expect(parseRfc3339(value), value).toBe(referenceRfc3339(value));
    }
  });
});

describe("parseAuthorization", () => {
  /** The header's grammar as one pattern. */
  function reference(header: string) {
    const m = /^Bearer ([^:\s]+):([^:\s]+):([^:\s]+)$/.exec(header.trim());
    return m ? { version: m[1], accessKeyId: m[2], signature: m[3] } : null;
  }

  it("agrees with the grammar written as one pattern", () => {
    const piece = fc.oneof(fc.constantFrom("", "1.0", "AK1", "a b", "\t", ":", "x:y", " ", "\u00a0", "Bearer"), fc.string({ maxLength: 6 }));
    const header = fc.oneof(
      fc.tuple(fc.constantFrom("", " ", "\n"), fc.constantFrom("Bearer ", "Bearer  ", "bearer ", "Basic ", "Bearer"), piece, fc.constantFrom(":", "::", ""), piece, fc.constantFrom(":", ""), piece, fc.constantFrom("", " ", "\t", ":")).map((parts) => parts.join("")),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(header, (h) => {
        expect(parseAuthorization(h)).toEqual(reference(h));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe("the timestamp header's two names", () => {
  it("reads X-Service-Timestamp, or X-Crusoe-Timestamp when the first is absent; both must agree", () => {
    expect(requestTimestamp("a", undefined)).toEqual({ ok: true, value: "a" });
    expect(requestTimestamp(undefined, "b")).toEqual({ ok: true, value: "b" });
    expect(requestTimestamp(null, "b")).toEqual({ ok: true, value: "b" });
    expect(requestTimestamp("a", "a")).toEqual({ ok: true, value: "a" });
    expect(requestTimestamp("a", "b")).toEqual({ ok: false });
    expect(requestTimestamp("", "b")).toEqual({ ok: false });
    expect(requestTimestamp(undefined, undefined)).toEqual({ ok: true, value: null });
  });

  it("signedHeaders keeps sending X-Service-Timestamp", () => {
    const headers = signedHeaders({ accessKeyId: "AK1", secretKey: SECRET }, { method: "GET", url: "https://api.test/v1/locations" }, new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    expect(Object.keys(headers).sort()).toEqual(["Authorization", TIMESTAMP_HEADER]);
    expect(headers[TIMESTAMP_HEADER]).toBe("2026-01-02T03:04:05.000Z");
    expect(TIMESTAMP_HEADER).toBe("X-Service-Timestamp");
    expect(UPSTREAM_TIMESTAMP_HEADER).toBe("X-Crusoe-Timestamp");
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
    ["a key id longer than any issued", { authorization: `Bearer 1.0:${"K".repeat(65)}:${good}` }, "malformed_authorization"],
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

  it("takes a signature only as an encoder writes it: the three other spellings of its last character decode the same, and are refused", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(good.at(-1)!);
    expect(last % 4).toBe(0);
    for (let low = 1; low < 4; low++) {
      const variant = good.slice(0, -1) + alphabet[last + low]!;
      expect(Buffer.from(variant, "base64url").equals(Buffer.from(good, "base64url"))).toBe(true);
      expect(await verify({ ...base, authorization: authorizationHeader("AK1", variant) })).toEqual({ ok: false, reason: "malformed_authorization" });
    }
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

  it("signs and verifies exactly as createHmac does: any key length, any payload, however long", async () => {
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 20 }), fc.string({ minLength: 1400, maxLength: 3000 }));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 150 }), text, text, fc.constantFrom("GET", "post", "DELETE"), async (keyBytes, path, query, method) => {
        const key = randomBytes(keyBytes);
        const secret = key.toString("base64url");
        const input = { method, path: `/v1/${path}`, query, timestamp: ts };
        const expected = createHmac("sha256", key).update(signingPayload(input)).digest("base64url");
        expect(sign(secret, input)).toBe(expected);
        const lookupKey = async () => ({ secret, key: "k" });
        expect(await verify({ ...input, authorization: authorizationHeader("AK1", expected), now, lookupKey })).toEqual({ ok: true, key: "k" });
        // One bit off anywhere in the digest is refused.
        const flipped = Buffer.from(expected, "base64url");
        flipped[keyBytes % 32]! ^= 1;
        const refused = await verify({ ...input, authorization: authorizationHeader("AK1", flipped.toString("base64url")), now, lookupKey });
        expect(refused).toEqual({ ok: false, reason: "bad_signature" });
      }),
      { numRuns: 300 },
    );
  });

  describe("vectors under either timestamp header", () => {
    // The vectors: the signature covers the timestamp's value, never the header's name.
    const vectors = [
      { method: "GET", path: "/v1/locations", query: "", timestamp: "2026-01-02T03:04:05Z", signature: "CPsjGs5sDKOcIfhVi3z8don1pOu94ycwBumXAnxM2Eo" },
      {
        method: "GET",
        path: "/v1alpha5/organizations/8f1c2a9e-0000-4000-8000-000000000001/audit-logs",
        query: "limit=20&actor_types=Platform%20Admin&actions=Create&target_names=a%2Bb%2Fc%2Cd&actions=Update",
        timestamp: "2026-01-02T03:04:05+00:00",
        signature: "KZ-S_n2MS2l6aut0PN2mfCiWFP_vP-4tdQp2IUYu1do",
      },
      { method: "POST", path: "/v1/organizations/projects", query: "", timestamp: "2026-01-02T03:04:05.123Z", signature: "5vzFXPqHd8KhrJoDKm_hZv140ELRH9Dhramk9ZD9TG0" },
    ];
    const lookupKey = async (id: string) => (id === "AK1" ? { secret: SECRET, key: "user-1" } : null);

    it.each(vectors)("$method $path: X-Service-Timestamp, X-Crusoe-Timestamp, or both alike", async (v) => {
      const common = { method: v.method, path: v.path, query: v.query, authorization: authorizationHeader("AK1", v.signature), now, lookupKey };
      expect(await verify({ ...common, timestamp: v.timestamp })).toEqual({ ok: true, key: "user-1" });
      expect(await verify({ ...common, timestamp: undefined, upstreamTimestamp: v.timestamp })).toEqual({ ok: true, key: "user-1" });
      expect(await verify({ ...common, timestamp: null, upstreamTimestamp: v.timestamp })).toEqual({ ok: true, key: "user-1" });
      expect(await verify({ ...common, timestamp: v.timestamp, upstreamTimestamp: v.timestamp })).toEqual({ ok: true, key: "user-1" });
    });

    it("refuses the two headers with different values, even when either alone would verify", async () => {
      const v = vectors[0]!;
      const other = "2026-01-02T03:04:06Z";
      const common = { method: v.method, path: v.path, query: v.query, authorization: authorizationHeader("AK1", v.signature), now, lookupKey };
      expect(await verify({ ...common, timestamp: v.timestamp, upstreamTimestamp: other })).toEqual({ ok: false, reason: "conflicting_timestamps" });
      expect(await verify({ ...common, timestamp: other, upstreamTimestamp: v.timestamp })).toEqual({ ok: false, reason: "conflicting_timestamps" });
      expect(await verify({ ...common, timestamp: "", upstreamTimestamp: v.timestamp })).toEqual({ ok: false, reason: "conflicting_timestamps" });
    });

    it("checks X-Crusoe-Timestamp like the other: format, window, signature", async () => {
      const v = vectors[0]!;
      const common = { method: v.method, path: v.path, query: v.query, authorization: authorizationHeader("AK1", v.signature), timestamp: undefined, lookupKey };
      expect(await verify({ ...common, now, upstreamTimestamp: "yesterday" })).toEqual({ ok: false, reason: "invalid_timestamp" });
      expect(await verify({ ...common, now: now + 301_000, upstreamTimestamp: v.timestamp })).toEqual({ ok: false, reason: "timestamp_out_of_window" });
      expect(await verify({ ...common, now, upstreamTimestamp: "2026-01-02T03:04:05.000Z" })).toEqual({ ok: false, reason: "bad_signature" });
      expect(await verify({ ...common, now, upstreamTimestamp: "" })).toEqual({ ok: false, reason: "missing_timestamp" });
    });
  });

  it("honours a configured window", async () => {
    expect((await verify({ ...base, now: now + 60_000, skewSeconds: 30 })).ok).toBe(false);
    expect((await verify({ ...base, now: now + 20_000, skewSeconds: 30 })).ok).toBe(true);
  });
});
