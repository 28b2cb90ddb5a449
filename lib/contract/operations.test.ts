import { describe, expect, it } from "vitest";
import { matchOperation, matchVersionedOperation, operationPath, operations, type OperationId } from "./operations";

describe("operations table", () => {
  it("fills path parameters, each escaped as one segment", () => {
    expect(operationPath("listProjects")).toBe("/v1/organizations/projects");
    expect(operationPath("getProject", { project_id: "a/b c" })).toBe("/v1/organizations/projects/a%2Fb%20c");
    expect(operationPath("deleteSCIMIntegrationToken", { org_id: "o", integration_id: "i", access_key_id: "k" })).toBe(
      "/v1/organizations/o/scim/integrations/i/tokens/k",
    );
  });

  it("matches a static segment before a parameter", () => {
    expect(matchOperation("GET", "/organizations/o/reservations/gpu-tracking")).toBe("getReservationsGPUTracking");
    expect(matchOperation("get", "/organizations/o/reservations/r-1")).toBe("getReservation");
    expect(matchOperation("GET", "/organizations/projects")).toBe("listProjects");
    expect(matchOperation("GET", "/organizations/p/projects")).toBeUndefined();
  });

  it("matches only declared methods, under /v1 and /v1alpha5 only", () => {
    expect(matchVersionedOperation("POST", "/v1/organizations/projects")).toBe("createProject");
    expect(matchVersionedOperation("PATCH", "/v1/organizations/projects")).toBeUndefined();
    expect(matchVersionedOperation("GET", "/v1alpha5/iam/roles")).toBe("listRoles");
    expect(matchVersionedOperation("GET", "/v2/iam/roles")).toBeUndefined();
    expect(matchVersionedOperation("GET", "/iam/roles")).toBeUndefined();
  });

  it("every path of the table matches its own operation", () => {
    for (const [id, op] of Object.entries(operations) as [OperationId, (typeof operations)[OperationId]][]) {
      const concrete = op.path.replace(/\{[^}]+\}/g, "x-1");
      expect(matchOperation(op.method, concrete), id).toBe(id);
    }
  });
});
