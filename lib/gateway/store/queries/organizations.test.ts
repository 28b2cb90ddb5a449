import { describe, expect, it } from "vitest";
import { formatCents } from "./organizations";

describe("an organization's balance", () => {
  it("is written as the upstream writes it: a dollar sign, whole dollars without grouping, two digits of cents", () => {
    expect(formatCents(100_000)).toBe("$1000.00");
    expect(formatCents(123_456_789)).toBe("$1234567.89");
    expect(formatCents(5)).toBe("$0.05");
    expect(formatCents(-30_000)).toBe("-$300.00");
    expect(formatCents(0)).toBe("$0.00");
  });
});
