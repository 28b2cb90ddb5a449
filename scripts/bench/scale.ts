/** Sizes of one benchmark run: `full` is the one whose table is committed; `quick` is for development. */
export interface Scale {
  name: "full" | "quick";
  /** Throughput: each warm-up load's length, and the most warm-up a server gets before it is measured anyway. */
  warmupSeconds: number;
  warmupMaxSeconds: number;
  loadSeconds: number;
  signingIterations: number;
  bffIterations: number;
  auditEntries: number;
  billingRows: number;
  /** Repetitions of each audit-log query. */
  queryRepeats: number;
  /** SCIM provisioning: people, groups and group memberships pushed through /scim/v2. */
  scimUsers: number;
  scimGroups: number;
  scimMemberships: number;
  /** A large customer's SCIM group: its members (people written by the store), against a group of 50. */
  scimLargeGroup: number;
  /** The scale section on PostgreSQL: audit entries (over 3 organizations) and usage rows, each. */
  scaleRows: number;
}

export const SCALES: Record<Scale["name"], Scale> = {
  full: {
    name: "full",
    warmupSeconds: 3,
    warmupMaxSeconds: 45,
    loadSeconds: 10,
    signingIterations: 200_000,
    bffIterations: 2_000,
    auditEntries: 1_000_000,
    billingRows: 1_000_000,
    queryRepeats: 40,
    scimUsers: 10_000,
    scimGroups: 200,
    scimMemberships: 20_000,
    scimLargeGroup: 50_000,
    scaleRows: 10_000_000,
  },
  quick: {
    name: "quick",
    warmupSeconds: 1,
    warmupMaxSeconds: 6,
    loadSeconds: 3,
    signingIterations: 20_000,
    bffIterations: 300,
    auditEntries: 50_000,
    billingRows: 50_000,
    queryRepeats: 10,
    scimUsers: 1_000,
    scimGroups: 20,
    scimMemberships: 2_000,
    scimLargeGroup: 5_000,
    scaleRows: 200_000,
  },
};

/** The benchmark sections, in the order they run. */
export const SECTIONS = ["throughput", "signing", "bff", "audit", "csv", "scim", "console", "scale"] as const;
export type Section = (typeof SECTIONS)[number];
