import { describe, expect, it } from "vitest";
import { formatInstantUtc } from "./format";

describe("formatInstantUtc, the server's text of an audit entry's time", () => {
  it("writes the instant in UTC, to the second, with its offset, whatever offset it came with", () => {
    expect(formatInstantUtc("2025-03-14T08:30:12.345+01:00")).toBe("2025-03-14 07:30:12 +00:00");
    expect(formatInstantUtc("2025-12-31T23:59:59.999999Z")).toBe("2025-12-31 23:59:59 +00:00");
  });

  it("leaves a value that is no instant as it is", () => {
    expect(formatInstantUtc("not a time")).toBe("not a time");
  });
});
