import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeCallbackPath, sameSitePath } from "./sign-in-messages";

const ORIGIN = "https://console.example";

/** Where a browser goes with `Location: <path>`: it drops tabs and newlines, reads "\" as "/", then resolves. */
function browserTarget(location: string): URL {
  return new URL(location.replace(/[\t\n\r]/g, ""), ORIGIN);
}

describe("the sign-in callback", () => {
  it.each([
    ["/\t/attacker.test/x"],
    ["/\n/attacker.test/x"],
    ["/\r\n/attacker.test"],
    ["/x\r\nSet-Cookie: a=b"],
    ["//attacker.test"],
    ["/\\attacker.test"],
    ["/\\/attacker.test"],
    ["https://attacker.test/x"],
    ["javascript:alert(1)"],
    ["/ /attacker.test"],
    ["/\u00a0/attacker.test"],
    ["/\u202e/attacker.test"],
    ["/\u200b/attacker.test"],
    ["/orgs\u0000"],
    ["orgs"],
  ])("refuses %j (falls back to /)", (value) => {
    expect(safeCallbackPath(value)).toBe("/");
  });

  it.each([
    ["/orgs/abc/projects?tab=vms#top", "/orgs/abc/projects?tab=vms#top"],
    ["/orgs/../catalog", "/catalog"],
    ["/%09/attacker.test/x", "/%09/attacker.test/x"],
    ["/orgs?next=//attacker.test", "/orgs?next=//attacker.test"],
  ])("keeps the same-site path %j as %j", (value, expected) => {
    expect(safeCallbackPath(value)).toBe(expected);
    expect(browserTarget(expected).origin).toBe(ORIGIN);
  });

  it("uses the fallback when absent, or when it would lead back to sign-in or an API", () => {
    expect(safeCallbackPath(undefined)).toBe("/orgs");
    expect(safeCallbackPath("")).toBe("/orgs");
    expect(safeCallbackPath("/sign-in?callbackUrl=/x")).toBe("/orgs");
    expect(safeCallbackPath("/api/auth/signout")).toBe("/orgs");
  });

  it("never leads a browser off the site, nor carries a control, format or space character (property)", () => {
    const piece = fc.constantFrom("/", "\\", "\t", "\n", "\r", " ", "\u00a0", "\u2028", "\u202e", "\u200b", "%09", "%2f", "%5c", "attacker.test", "@", ":", "?", "#", ".", "..", "x");
    const value = fc.oneof(fc.array(piece, { maxLength: 10 }).map((parts) => parts.join("")), fc.string({ unit: "binary", maxLength: 30 }));
    fc.assert(
      fc.property(value, (input) => {
        for (const out of [safeCallbackPath(input), sameSitePath(input) ?? "/"]) {
          expect(out.startsWith("/")).toBe(true);
          expect(out).not.toMatch(/[\p{Cc}\p{Cf}\p{Z}\s\\]/u);
          expect(browserTarget(out).origin).toBe(ORIGIN);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
