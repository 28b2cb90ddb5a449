import { describe, expect, it } from "vitest";
import { operations } from "@/lib/contract/operations";
import { createApi } from "./app";

interface RouteDefinition {
  type: string;
  route?: { method: string; path: string; operationId?: string };
}

function gatewayRoutes(): Array<{ id: string; method: string; path: string }> {
  const api = createApi();
  return (api.openAPIRegistry.definitions as RouteDefinition[])
    .filter((d) => d.type === "route" && d.route)
    .map((d) => ({ id: d.route!.operationId ?? "", method: d.route!.method, path: d.route!.path }));
}

describe("the gateway's routes", () => {
  it("are exactly the operations table: same operationIds, methods and paths", () => {
    const routes = gatewayRoutes();
    const fromRoutes = Object.fromEntries(routes.map((r) => [r.id, { method: r.method, path: r.path }]));
    expect(routes).toHaveLength(new Set(routes.map((r) => r.id)).size);
    expect(fromRoutes).toEqual(operations);
  });

});
