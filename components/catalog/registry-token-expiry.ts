/** The expiry choices of the registry token form. */
export const EXPIRY = { never: "Never", "30d": "In 30 days", "90d": "In 90 days", "365d": "In 1 year", custom: "On a date…" } as const;
export type Expiry = keyof typeof EXPIRY;
export const DAYS: Partial<Record<Expiry, number>> = { "30d": 30, "90d": 90, "365d": 365 };
