import fc from "fast-check";
import { FORMULA_TRIGGERS } from "./csv-formula";

/** For tests: text rich in what matters to CSV (trigger characters, separators, quotes, line breaks, the prefix itself). */
export const csvishString = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...FORMULA_TRIGGERS, ",", '"', "\n", "'", " ", "1", ".", "A", "("),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});
