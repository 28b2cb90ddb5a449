import { describe, expect, it } from "vitest";
import { parseTheme, themeClass } from "./theme";

describe("theme", () => {
  it("reads the three choices from the cookie's value", () => {
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("system")).toBe("system");
  });

  it("takes anything else for the system's theme", () => {
    for (const value of [undefined, null, "", "Dark", "dark ", "blue", "dark;light", "__proto__"]) expect(parseTheme(value)).toBe("system");
  });

  it("puts a class on <html> only for an explicit choice", () => {
    expect(themeClass("light")).toBe("light");
    expect(themeClass("dark")).toBe("dark");
    expect(themeClass("system")).toBeUndefined();
  });
});
