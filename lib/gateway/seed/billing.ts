import type { Database } from "../store/client";
import { seedAuditLog } from "./audit-logs";
import type { Pace } from "./pace";
import { rng } from "./random";
import { seedReservations } from "./reservations";
import { seedQuotas, seedUsage } from "./usage";

interface Person {
  id: string;
  email: string;
}

/**
 * Reservations, GPU tracking, metered usage, quotas and audit-log history of
 * both demo organizations. A generator of its own keeps the rest of the demo
 * data the same whatever is added here.
 */
export async function seedAccounting(
  tx: Database,
  input: { organizationId: string; otherOrganizationId: string; owner: Person; member: Person; outsider: Person; now: Date; idSalt: string; pace: Pace },
) {
  const r = rng(20_260_301, input.idSalt);
  const { now, pace } = input;
  const reserved = await seedReservations(tx, r, { organizationId: input.organizationId, now, extra: true });
  await pace();
  await seedUsage(tx, r, { organizationId: input.organizationId, now, reservations: reserved, pace });
  await seedQuotas(tx, input.organizationId);
  await seedAuditLog(tx, r, {
    organizationId: input.organizationId,
    actors: [
      { ...input.owner, type: "user" },
      { ...input.member, type: "user" },
    ],
    count: 2400,
    now,
    pace,
  });

  const otherReserved = await seedReservations(tx, r, { organizationId: input.otherOrganizationId, now, extra: false });
  await seedUsage(tx, r, { organizationId: input.otherOrganizationId, now, regions: ["us-west1"], reservations: otherReserved, pace });
  await seedAuditLog(tx, r, { organizationId: input.otherOrganizationId, actors: [{ ...input.outsider, type: "user" }], count: 60, now, pace });
}
