import type { FieldValues, Resolver } from "react-hook-form";
import type { z } from "zod";

/**
 * A react-hook-form resolver for a zod schema of the contract that is fetched when the form is
 * first validated (submit, or a touched field), not with the page: zod and the contract's schemas
 * are about 30 KB gzipped, more than most pages' own code. Validation is the schema's own, exactly
 * as with `zodResolver`. `preload()` starts the fetch early (the form's first focus).
 */
export function lazyZodResolver<Input extends FieldValues, Output>(
  load: () => Promise<z.ZodType<Output, Input>>,
): Resolver<Input, unknown, Output> & { preload: () => void } {
  let ready: Promise<Resolver<Input, unknown, Output>> | undefined;
  const resolverFor = () => {
    ready ??= Promise.all([load(), import("@hookform/resolvers/zod")]).then(
      ([schema, { zodResolver }]) => zodResolver(schema) as unknown as Resolver<Input, unknown, Output>,
      (error: unknown) => {
        // A failed fetch (offline for a moment) is tried again on the next validation.
        ready = undefined;
        throw error;
      },
    );
    return ready;
  };
  const resolver: Resolver<Input, unknown, Output> = async (values, context, options) => (await resolverFor())(values, context, options);
  return Object.assign(resolver, { preload: () => void resolverFor().catch(() => undefined) });
}
