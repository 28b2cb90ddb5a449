import type { ReservationStatus } from "@/lib/contract/reservations";

/**
 * The contract's reservation statuses, for the browser: importing them from
 * lib/contract would bring zod into the reservation pages. The types below fail
 * to compile if either list gains a value the other lacks; statuses.test.ts
 * compares the order.
 */
export const RESERVATION_STATUSES = ["effective", "pending", "expired", "cancelled"] as const satisfies readonly ReservationStatus[];

type Missing = Exclude<ReservationStatus, (typeof RESERVATION_STATUSES)[number]>;
export const everyStatusListed: [Missing] extends [never] ? true : Missing = true;
