import { createLoader, parseAsNativeArrayOf, parseAsString, parseAsStringLiteral } from "nuqs/server";
import { RANGE_PRESET_VALUES } from "@/components/spend/date-range";

/** The billing page's URL: one schema for the server's prefetch and the browser's state. */
export const billingSearchParams = {
  range: parseAsStringLiteral(RANGE_PRESET_VALUES).withDefault("mtd"),
  from: parseAsString,
  to: parseAsString,
  projects: parseAsNativeArrayOf(parseAsString),
  resource_types: parseAsNativeArrayOf(parseAsString),
  regions: parseAsNativeArrayOf(parseAsString),
};

export const loadBillingSearchParams = createLoader(billingSearchParams);
