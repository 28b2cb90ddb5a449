import { describe, expect, it } from "vitest";
import { quotaLevel } from "./quotas";

describe("quotaLevel", () => {
  it("warns from 80 % and alarms from 95 % of the maximum", () => {
    expect(quotaLevel({ used: 79, max: 100 })).toBe("ok");
    expect(quotaLevel({ used: 80, max: 100 })).toBe("near");
    expect(quotaLevel({ used: 94, max: 100 })).toBe("near");
    expect(quotaLevel({ used: 95, max: 100 })).toBe("critical");
    expect(quotaLevel({ used: 120, max: 100 })).toBe("critical");
  });

  it("tells a quota of zero apart", () => {
    expect(quotaLevel({ used: 0, max: 0 })).toBe("none");
    expect(quotaLevel({ used: 1, max: 0 })).toBe("critical");
  });
});
