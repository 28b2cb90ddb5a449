import { EARLIEST } from "@/lib/contract/time";
import { requireOrgMember, type Access } from "../../authz";
import { badRequest, forbidden, notFound } from "../../errors";
import type { Database } from "../../store/client";
import { evaluateFlags } from "../../store/queries/flags";
import { findReservation, gpuTrackingSeries, latestGpuTracking, listReservations } from "../../store/queries/reservations";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./reservations.routes";

const DEFAULT_TRACKING_WINDOW_MS = 30 * 86_400_000;

/** GPU tracking is for members of the organization who have the reservations feature. */
async function requireReservationsFeature(db: Database, access: Access, orgId: string): Promise<void> {
  await requireOrgMember(access, orgId);
  const flags = await evaluateFlags(db, { userId: access.caller.userId, organizationId: orgId });
  if (flags.reservations !== true) throw forbidden("the caller does not have the reservations feature");
}

export const getReservations: AppRouteHandler<typeof routes.getReservations> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const { status } = c.req.valid("query");
  await requireOrgMember(c.get("access"), orgId);
  return c.json({ items: await listReservations(c.get("deps").db, orgId, status) }, 200);
};

export const getReservation: AppRouteHandler<typeof routes.getReservation> = async (c) => {
  const { organization_id: orgId, reservation_id: id } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  const reservation = await findReservation(c.get("deps").db, orgId, id);
  if (!reservation) throw notFound(`reservation ${id} not found`);
  return c.json({ items: [reservation] }, 200);
};

export const getReservationsGpuTracking: AppRouteHandler<typeof routes.getReservationsGpuTracking> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  const { db } = c.get("deps");
  await requireReservationsFeature(db, c.get("access"), orgId);
  const end = q.end_time ? new Date(q.end_time) : new Date();
  const start = q.start_time ? new Date(q.start_time) : new Date(Math.max(EARLIEST, end.getTime() - DEFAULT_TRACKING_WINDOW_MS));
  if (start > end) throw badRequest("query.start_time", "must not be after end_time (default now)");
  const data = await gpuTrackingSeries(db, orgId, { productLines: q.product_line, regions: q.region, start, end });
  return c.json({ data }, 200);
};

export const getLatestGpuTracking: AppRouteHandler<typeof routes.getLatestGpuTracking> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  const { db } = c.get("deps");
  await requireReservationsFeature(db, c.get("access"), orgId);
  const { data, reservationIds } = await latestGpuTracking(db, orgId, { productLines: q.product_line, regions: q.region });
  return c.json({ data, reservation_id: reservationIds }, 200);
};
