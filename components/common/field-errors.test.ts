import { describe, expect, it } from "vitest";
import { failedChange, gatewayFieldProblems } from "./field-errors";

describe("gatewayFieldProblems", () => {
  it("reads validation messages with the body prefix, several at once", () => {
    expect(gatewayFieldProblems("body.billing_addr.postal_code: must hold only letters; body.company_name: must be at most 255 characters")).toEqual([
      { field: "billing_addr.postal_code", message: "must hold only letters" },
      { field: "company_name", message: "must be at most 255 characters" },
    ]);
  });

  it("reads a handler's own check and indexed fields", () => {
    expect(gatewayFieldProblems('name: a project named "x" already exists in this organization')).toEqual([
      { field: "name", message: 'a project named "x" already exists in this organization' },
    ]);
    expect(gatewayFieldProblems("bindings_to_create[1].scope_type: role X cannot be bound at project scope")).toEqual([
      { field: "bindings_to_create[1].scope_type", message: "role X cannot be bound at project scope" },
    ]);
  });

  it("ignores text that names no field", () => {
    expect(gatewayFieldProblems("only an owner of the organization may do this")).toEqual([]);
  });
});

describe("failedChange", () => {
  it("maps the index of a creation or deletion", () => {
    expect(failedChange("bindings_to_create[1].scope_type: role cannot be bound")).toEqual({ kind: "create", index: 1 });
    expect(failedChange("body.bindings_to_create[0].role_id: must not be empty")).toEqual({ kind: "create", index: 0 });
    expect(failedChange("bindings_to_delete[2]: role binding b of this user not found")).toEqual({ kind: "delete", index: 2 });
  });

  it("is null when no change is named", () => {
    expect(failedChange("bindings_to_delete: the same binding is listed twice")).toBeNull();
    expect(failedChange("user u not found")).toBeNull();
  });
});
