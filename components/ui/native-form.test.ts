import type { FormEvent } from "react";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { clearErrorOnChange, issueMessages, type FieldErrors } from "./native-form";

describe("issueMessages", () => {
  it("keeps the first message of each field, keyed by its dotted path", () => {
    const schema = z.object({
      name: z.string().min(1, "must not be empty").max(3, "too long"),
      address: z.object({ city: z.string().min(1, "is required"), postal_code: z.string().regex(/^\d+$/, "digits only") }),
    });
    const parsed = schema.safeParse({ name: "", address: { city: "", postal_code: "x" } });
    expect(parsed.success).toBe(false);
    expect(issueMessages(parsed.error!.issues)).toEqual({
      name: "must not be empty",
      "address.city": "is required",
      "address.postal_code": "digits only",
    });
  });
});

describe("clearErrorOnChange", () => {
  const change = (name: string) => ({ target: { name } }) as unknown as FormEvent<HTMLFormElement>;

  it("drops the message of the field that changed, and only it", () => {
    let errors: FieldErrors = { name: "must not be empty", city: "is required" };
    clearErrorOnChange(errors, (next) => (errors = next))(change("name"));
    expect(errors).toEqual({ name: undefined, city: "is required" });
  });

  it("leaves the state alone when the field had no message", () => {
    let calls = 0;
    clearErrorOnChange({ city: "is required" }, () => calls++)(change("name"));
    expect(calls).toBe(0);
  });
});
