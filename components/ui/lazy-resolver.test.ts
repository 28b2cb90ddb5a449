import type { ResolverOptions } from "react-hook-form";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { lazyZodResolver } from "./lazy-resolver";

const schema = z.object({ name: z.string().trim().min(1, "must not be empty") });
type Input = z.input<typeof schema>;
const options: ResolverOptions<Input> = { fields: {}, shouldUseNativeValidation: false };

describe("lazyZodResolver", () => {
  it("loads the schema on the first validation only, and validates exactly as the schema does", async () => {
    const load = vi.fn(async () => schema);
    const resolver = lazyZodResolver<Input, z.output<typeof schema>>(load);
    expect(load).not.toHaveBeenCalled();

    const refused = await resolver({ name: "  " }, undefined, options);
    expect(refused.errors.name?.message).toBe("must not be empty");
    expect(refused.values).toEqual({});

    // The schema's output (trimmed), not the raw input.
    const accepted = await resolver({ name: "  Ada " }, undefined, options);
    expect(accepted.errors).toEqual({});
    expect(accepted.values).toEqual({ name: "Ada" });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("preload starts the fetch before any validation", async () => {
    const load = vi.fn(async () => schema);
    const resolver = lazyZodResolver<Input, z.output<typeof schema>>(load);
    resolver.preload();
    expect(load).toHaveBeenCalledTimes(1);
    await resolver({ name: "x" }, undefined, options);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("tries the fetch again after one failed", async () => {
    const load = vi.fn<() => Promise<typeof schema>>().mockRejectedValueOnce(new Error("offline")).mockResolvedValue(schema);
    const resolver = lazyZodResolver<Input, z.output<typeof schema>>(load);
    await expect(resolver({ name: "x" }, undefined, options)).rejects.toThrow("offline");
    await expect(resolver({ name: "x" }, undefined, options)).resolves.toMatchObject({ values: { name: "x" } });
    expect(load).toHaveBeenCalledTimes(2);
  });
});
