import { z } from "zod";

export const listLocationsResponseSchema = z
  .object({ items: z.array(z.string()).meta({ example: ["us-northcentral1-a"] }) })
  .meta({ id: "ListLocationsResponseV1" });
