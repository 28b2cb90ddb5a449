import type { Query } from "@tanstack/react-query";
import { describe, expect, it, vi } from "vitest";
import { derivedGatewayQuery, gatewayQuery } from "./gateway-query";
import { makeQueryClient } from "./query-client";

interface Answer {
  rows: Array<{ kind: string; n: number }>;
}

const source = (day: string) => gatewayQuery<Answer, readonly ["rows", { day: string }]>(["rows", { day }] as const, "/v1/rows", { day });
const sumOf = (answer: Answer, kind: string) => answer.rows.filter((r) => r.kind === kind).reduce((s, r) => s + r.n, 0);

describe("derivedGatewayQuery", () => {
  it("derives from the source's answer in the cache: a change of parameters computes, and asks the gateway for nothing", async () => {
    const client = makeQueryClient();
    const derive = vi.fn(sumOf);
    client.setQueryData(source("d1").queryKey, { rows: [{ kind: "a", n: 2 }, { kind: "b", n: 5 }, { kind: "a", n: 1 }] });
    // Nothing answers /v1/rows here: a fetch would fail the query.
    await expect(client.fetchQuery(derivedGatewayQuery(source("d1"), "a", derive))).resolves.toBe(3);
    await expect(client.fetchQuery(derivedGatewayQuery(source("d1"), "b", derive))).resolves.toBe(5);
    expect(derive).toHaveBeenCalledTimes(2);
    // Each parameter is a query of its own, under the source's key.
    expect(derivedGatewayQuery(source("d1"), "a", derive).queryKey).toEqual(["rows", { day: "d1" }, "derived", "a"]);
  });

  it("the server derives from the gateway's answer the very value the browser would, under the same key", () => {
    const q = derivedGatewayQuery(source("d1"), "a", sumOf);
    expect(q.path).toBe(source("d1").path);
    expect(q.fromGateway({ rows: [{ kind: "a", n: 4 }] })).toBe(4);
  });

  it("keeps the previous result on screen while the next is computed from the same answer, never one of another answer", () => {
    const next = derivedGatewayQuery(source("d1"), "b", sumOf);
    const placeholder = next.placeholderData as (previous: number | undefined, previousQuery: Pick<Query, "queryKey"> | undefined) => number | undefined;
    expect(placeholder(3, { queryKey: derivedGatewayQuery(source("d1"), "a", sumOf).queryKey })).toBe(3);
    expect(placeholder(3, { queryKey: derivedGatewayQuery(source("d2"), "a", sumOf).queryKey })).toBeUndefined();
    expect(placeholder(undefined, undefined)).toBeUndefined();
  });
});
