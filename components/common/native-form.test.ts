import type { FormEvent } from "react";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { clearErrorOnChange, issueMessages, validData, type FieldErrors } from "./native-form";

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

describe("validData", () => {
  const schema = z.object({ alias: z.string().trim(), city: z.string().min(1, "is required"), code: z.string().min(1, "is required") });
  const fakeForm = () => {
    const fields = ["alias", "city", "code"].map((name) => ({ name, focus: vi.fn() }));
    return { form: { elements: fields } as unknown as HTMLFormElement, fields };
  };

  it("returns the schema's data and clears the messages", () => {
    const { form, fields } = fakeForm();
    const setErrors = vi.fn();
    expect(validData(form, schema.safeParse({ alias: " x ", city: "Oslo", code: "0150" }), setErrors)).toEqual({ alias: "x", city: "Oslo", code: "0150" });
    expect(setErrors).toHaveBeenCalledWith({});
    expect(fields.every((f) => f.focus.mock.calls.length === 0)).toBe(true);
  });

  it("returns null, shows each field's message and focuses the first field at fault", () => {
    const { form, fields } = fakeForm();
    const setErrors = vi.fn();
    expect(validData(form, schema.safeParse({ alias: "", city: "", code: "" }), setErrors)).toBeNull();
    expect(setErrors).toHaveBeenCalledWith({ city: "is required", code: "is required" });
    expect(fields.map((f) => f.focus.mock.calls.length)).toEqual([0, 1, 0]);
  });
});
