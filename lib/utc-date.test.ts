import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { formatMonth } from "./utc-date";

// Intl's en-US output, the definition.
const intl = (options: Intl.DateTimeFormatOptions) => (d: Date) => new Intl.DateTimeFormat("en-US", options).format(d);

describe("dates written out agree with Intl (en-US, UTC)", () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  const instants = fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });
  it("formatMonth", () => {
    fc.assert(
      fc.property(instants, (date) => {
        expect(formatMonth(date)).toBe(intl({ month: "long", timeZone: "UTC" })(date));
      }),
      { numRuns: 5_000 },
    );
  });

  it("formatMonth names the UTC month in a browser far east of UTC: noon UTC of March 31 is April 1 at UTC+14", () => {
    process.env.TZ = "Pacific/Kiritimati";
    const now = new Date("2026-03-31T12:00:00Z");
    expect(now.getDate()).toBe(1); // the zone took effect
    expect(formatMonth(now)).toBe("March");
    expect(formatMonth(new Date("2026-12-31T12:00:00Z"))).toBe("December");
  });
});
