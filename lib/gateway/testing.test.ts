import { describe, expect, it } from "vitest";
import { clearOfMidnightUtc } from "./testing";

describe("clearOfMidnightUtc", () => {
  const midnight = Date.UTC(2026, 11, 2);

  it("does not wait outside the margin before midnight UTC", async () => {
    expect(await clearOfMidnightUtc(120_000, midnight - 120_000)).toBe(0);
    expect(await clearOfMidnightUtc(120_000, midnight + 1)).toBe(0);
  });

  it("waits until just past midnight inside the margin", async () => {
    const started = Date.now();
    expect(await clearOfMidnightUtc(120_000, midnight - 50)).toBe(1_050);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });
});
