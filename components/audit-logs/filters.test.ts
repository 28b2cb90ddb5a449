import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { filterProblems, localInputToRfc3339, type FilterValues } from "./filters";

const empty: FilterValues = {
  window: "1d",
  from: "",
  to: "",
  project_ids: [],
  actions: [],
  actor_types: [],
  target_types: [],
  locations: [],
  results: [],
  results_not: [],
  surfaces: [],
  actor_emails: "",
  actor_ids: "",
  target_ids: "",
  target_names: "",
};

describe("filterProblems", () => {
  it("finds nothing wrong with no filters, or with valid ones", () => {
    expect(filterProblems(empty)).toEqual({});
    expect(filterProblems({ ...empty, actor_emails: "ada@example.com, bob@example.org", results: ["OK"], target_names: "a, b" })).toEqual({});
  });

  it("names the field of each problem", () => {
    expect(filterProblems({ ...empty, actor_emails: "ada@example.com, nope" })).toEqual({
      actor_emails: "Actor e-mails: each must be an e-mail address, e.g. someone@example.com",
    });
    expect(filterProblems({ ...empty, actions: Array.from({ length: 101 }, (_, i) => `a${i}`) })).toEqual({ actions: "at most 100 values" });
    expect(filterProblems({ ...empty, target_ids: "x".repeat(513) })).toEqual({ target_ids: "Target IDs: each value at most 512 characters" });
  });

  it("checks a custom window's ends", () => {
    expect(filterProblems({ ...empty, window: "custom" })).toEqual({ from: "Choose a start, an end, or both" });
    expect(filterProblems({ ...empty, window: "custom", from: "2026-01-02T00:00", to: "2026-01-01T00:00" })).toEqual({ from: "Start must not be after the end" });
    expect(filterProblems({ ...empty, window: "custom", to: "2026-01-01T00:00" })).toEqual({});
    // Outside a custom window the ends are ignored.
    expect(filterProblems({ ...empty, from: "garbage" })).toEqual({});
  });

  it("accepts exactly the e-mail addresses the contract's zod rule accepts", () => {
    const email = z.email();
    const candidates = fc.oneof(fc.emailAddress(), fc.string({ maxLength: 40 }).filter((s) => !s.includes(",")));
    fc.assert(
      fc.property(candidates, (candidate) => {
        const trimmed = candidate.trim();
        fc.pre(trimmed !== "");
        const refused = filterProblems({ ...empty, actor_emails: trimmed }).actor_emails !== undefined;
        expect(refused).toBe(!email.safeParse(trimmed).success);
      }),
      { numRuns: 500 },
    );
  });
});

describe("localInputToRfc3339", () => {
  it("reads a datetime-local value in the user's zone; as the window's end, through the last moment of its minute", () => {
    const zone = process.env.TZ;
    process.env.TZ = "Asia/Kathmandu";
    try {
      expect(localInputToRfc3339("2031-01-01T10:05")).toBe("2031-01-01T10:05:00+05:45");
      expect(localInputToRfc3339("2031-01-01T10:05", true)).toBe("2031-01-01T10:05:59.999999+05:45");
      expect(localInputToRfc3339("2031-01-01T10:05:30", true)).toBe("2031-01-01T10:05:30+05:45");
      expect(localInputToRfc3339("", true)).toBeNull();
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});
