import { describe, expect, it } from "vitest";
import { additionKey, bindingLock, buildApply, explainRefusal, failedKey, OWNER_BINDINGS_ONLY, personLock, removalKey, type StagedChange } from "./staged";

const add = (roleId: string, scopeType: "org" | "project", scopeObjectId: string): StagedChange => ({
  key: additionKey(roleId, scopeType, scopeObjectId),
  kind: "add",
  roleId,
  roleName: roleId,
  allowedScopes: ["project"],
  scopeType,
  scopeObjectId,
});
const remove = (id: string): StagedChange => ({
  key: removalKey(id),
  kind: "remove",
  binding: { id, customer_id: "u1", role_id: "r", role_name: "R", scope_type: "project", scope_object_id: "p" },
});

describe("buildApply", () => {
  const changes = [add("r1", "project", "p1"), remove("b1"), add("r2", "org", "o1"), remove("b2")];

  it("puts additions and removals, in staged order, into one request for the user", () => {
    const { body } = buildApply("u1", changes);
    expect(body).toEqual({
      bindings_to_create: [
        { customer_id: "u1", role_id: "r1", scope_type: "project", scope_object_id: "p1" },
        { customer_id: "u1", role_id: "r2", scope_type: "org", scope_object_id: "o1" },
      ],
      bindings_to_delete: ["b1", "b2"],
    });
  });

  it("maps a failure named by index back to the staged change", () => {
    const apply = buildApply("u1", changes);
    expect(failedKey("bindings_to_create[1].scope_type: role r2 cannot be bound at org scope", apply)).toBe(additionKey("r2", "org", "o1"));
    expect(failedKey("bindings_to_delete[1]: role binding b2 of this user not found", apply)).toBe(removalKey("b2"));
    expect(failedKey("bindings_to_create[5].role_id: role not found", apply)).toBeNull();
    expect(failedKey("the caller lacks the permission iam.write", apply)).toBeNull();
  });
});

describe("explainRefusal", () => {
  it("says a refused scope in words, without field paths or ids", () => {
    const text = explainRefusal(400, "bindings_to_create[0].scope_type: role Auditor cannot be bound at project scope (allowed: org)");
    expect(text).toBe("Auditor cannot be granted on a project; it can be granted only across the organization.");
    expect(text).not.toMatch(/bindings_to_create|\[0\]/);
  });

  it("explains a missing permission, a duplicate and an unknown answer", () => {
    expect(explainRefusal(403, "the caller lacks the permission iam.write")).toMatch(/iam\.write permission/);
    expect(explainRefusal(400, "bindings_to_create[1]: the user already has this binding (abc)")).toBe("This person already holds that role there.");
    expect(explainRefusal(undefined, "fetch failed")).toMatch(/could not be reached/);
    expect(explainRefusal(400, "body.x: something else")).toBe("Something else");
  });
});

describe("what the gateway would refuse, said before the click", () => {
  it("an owner's bindings are an owner's to change", () => {
    expect(personLock("owner", false)).toBe(OWNER_BINDINGS_ONLY);
    expect(personLock("owner", true)).toBeNull();
    expect(personLock("member", false)).toBeNull();
    // Not in the directory the page holds: the gateway decides, and its answer is shown.
    expect(personLock(undefined, false)).toBeNull();
  });

  it("a binding a SCIM group grants goes with the group", () => {
    expect(bindingLock({ via_group_id: "g-1" })).toMatch(/^Granted through a SCIM group mapping/);
    expect(bindingLock({})).toBeNull();
  });

  it("the gateway's owner-for-owner refusal is not explained as a missing iam.write", () => {
    expect(explainRefusal(403, "only an owner of the organization may change the role bindings of an owner")).toBe(OWNER_BINDINGS_ONLY);
    expect(explainRefusal(403, "the caller lacks the permission iam.write")).toMatch(/iam\.write permission/);
  });
});
