import { describe, expect, it } from "vitest";
import { compareInstants, storeInstant, timestampSchema } from "./time";

describe("compareInstants", () => {
  it("orders RFC 3339 timestamps to the last digit of their fractions, in any offset", () => {
    expect(compareInstants("2031-01-01T00:00:00.0009Z", "2031-01-01T00:00:00.0001Z")).toBeGreaterThan(0);
    expect(compareInstants("2031-01-01T00:00:00.0001Z", "2031-01-01T00:00:00.00010Z")).toBe(0);
    expect(compareInstants("2031-01-01T09:00:00.0005+09:00", "2031-01-01T00:00:00.0004999Z")).toBeGreaterThan(0);
    expect(compareInstants("2031-01-01T00:00:00.001Z", "2031-01-01T00:00:00.0009999Z")).toBeGreaterThan(0);
    expect(compareInstants("2030-12-31", "2031-01-01")).toBeLessThan(0);
  });
});

describe("timestampSchema", () => {
  it("tells a malformed timestamp one thing: that it is malformed", () => {
    const result = timestampSchema.safeParse("2031-01-01T00:00:00+99:99");
    expect(result.error?.issues.map((i) => i.message)).toEqual(["must be an RFC 3339 timestamp with offset, e.g. 2024-01-31T23:59:59Z"]);
    expect(timestampSchema.safeParse("0000-12-31T23:59:59Z").error?.issues.map((i) => i.message)).toEqual(["must fall between years 0001 and 9999 in UTC"]);
  });
});

describe("storeInstant", () => {
  it("writes a bound in UTC to the microsecond, rounding further digits toward the window's inside", () => {
    expect(storeInstant("2031-01-01T09:00:00+09:00", "start")).toBe("2031-01-01T00:00:00.000000Z");
    expect(storeInstant("2031-01-01T00:00:00.0009Z", "start")).toBe("2031-01-01T00:00:00.000900Z");
    expect(storeInstant("2031-01-01T00:00:00.00000001Z", "start")).toBe("2031-01-01T00:00:00.000001Z");
    expect(storeInstant("2031-01-01T00:00:00.99999999Z", "start")).toBe("2031-01-01T00:00:01.000000Z");
    expect(storeInstant("2031-01-01T00:00:00.00000099Z", "end")).toBe("2031-01-01T00:00:00.000000Z");
    expect(storeInstant("2024-01-01T00:00:00+20:00", "end")).toBe("2023-12-31T04:00:00.000000Z");
    expect(storeInstant("0001-01-01T00:00:00.5Z", "start")).toBe("0001-01-01T00:00:00.500000Z");
    expect(storeInstant(`2031-01-01T00:00:00.${"1".repeat(200)}Z`, "end")).toBe("2031-01-01T00:00:00.111111Z");
  });

  it("keeps every digit past the year 2255 (microseconds past 2^53), and stays within the year 9999", () => {
    expect(storeInstant("9000-06-15T12:34:56.123457Z", "start")).toBe("9000-06-15T12:34:56.123457Z");
    expect(storeInstant("2300-01-01T00:00:00.000001Z", "start")).toBe("2300-01-01T00:00:00.000001Z");
    // "No upper bound", as clients write it.
    expect(storeInstant("9999-12-31T23:59:59.999999Z", "end")).toBe("9999-12-31T23:59:59.999999Z");
    expect(storeInstant("9999-12-31T23:59:59.99999Z", "end")).toBe("9999-12-31T23:59:59.999990Z");
    expect(storeInstant("9999-12-31T23:59:59.9999999Z", "start")).toBe("9999-12-31T23:59:59.999999Z");
    expect(storeInstant("0001-01-01T00:00:00.000001Z", "end")).toBe("0001-01-01T00:00:00.000001Z");
  });
});
