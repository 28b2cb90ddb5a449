import { notFound } from "../../errors";
import { findImage, listCapacities as capacityRows, listImages as imageRows } from "../../store/queries/catalog";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./catalog.routes";

const PRODUCT_GROUP = /^[a-z0-9][a-z0-9-]{0,63}$/;

export const listCapacities: AppRouteHandler<typeof routes.listCapacities> = async (c) => {
  const { product_name: productNames, location: locations } = c.req.valid("query");
  return c.json({ items: await capacityRows(c.get("deps").db, { productNames, locations }) }, 200);
};

export const listImages: AppRouteHandler<typeof routes.listImages> = async (c) => {
  const { product_group: raw } = c.req.valid("query");
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((g) => g.trim().toLowerCase()).filter((g) => g !== "");
  // A value that cannot name a product group matches no image, not a 400 (the router refuses only what the store cannot keep).
  const groups = values.length === 0 ? undefined : values.filter((g) => PRODUCT_GROUP.test(g));
  return c.json({ items: await imageRows(c.get("deps").db, groups) }, 200);
};

export const getImage: AppRouteHandler<typeof routes.getImage> = async (c) => {
  const { image_id: imageId } = c.req.valid("param");
  const image = await findImage(c.get("deps").db, imageId);
  if (!image) throw notFound(`image ${imageId} not found`);
  return c.json(image, 200);
};
