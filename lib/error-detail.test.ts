import { DrizzleQueryError } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { errorDetail } from "./error-detail";

describe("errorDetail", () => {
  it("gives a wrapped database error's own message, not the statement with its parameters", () => {
    const wrapped = new DrizzleQueryError("insert into console_sessions values ($1, $2)", ["ada@example.com", "AKIDSECRETLOOKING"], new Error('relation "console_sessions" does not exist'));
    expect(wrapped.message).toContain("ada@example.com");
    expect(errorDetail(wrapped)).toBe('relation "console_sessions" does not exist');
  });

  it("gives a fetch failure's reason, an unwrapped error's message, and a thrown value as text", () => {
    expect(errorDetail(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") }))).toBe("connect ECONNREFUSED 127.0.0.1:9");
    expect(errorDetail(new Error("plain"))).toBe("plain");
    expect(errorDetail("text")).toBe("text");
    expect(errorDetail(undefined)).toBe("");
  });
});
