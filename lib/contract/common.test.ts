import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aliasSchema, nameSchema } from "./common";

/** Every control and format character (bidi overrides and isolates, zero-width ones, soft hyphen…). */
const refused = fc.oneof(
  fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)).filter((ch) => /[\p{Cc}\p{Cf}]/u.test(ch)),
  fc.constantFrom("\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u061c", "\u0000", "\u001b", "\u007f"),
);

describe("names and labels", () => {
  it.each([["\u202eevil.exe"], ["pay\u200broll"], ["a\u2066b\u2069"], ["tab\there"], ["\u00adsoft"]])("refuse %j", (value) => {
    expect(nameSchema.safeParse(value).success).toBe(false);
    expect(aliasSchema.safeParse(value).success).toBe(false);
  });

  it("refuse any control or format character anywhere (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), refused, fc.string({ maxLength: 20 }), (before, ch, after) => {
        const value = `x${before}${ch}${after}x`;
        expect(nameSchema.safeParse(value).success).toBe(false);
        expect(aliasSchema.safeParse(value).success).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("keep letters of every script, emoji and punctuation", () => {
    for (const value of ["llm-training", "Ünïcödé projekt", "研究チーム", "مشروع", "🚀 launch", "a.b_c (1)"]) {
      expect(nameSchema.parse(value)).toBe(value);
    }
  });
});
