import { describe, expect, it } from "vitest";
import { MFA_METHODS as CONTRACT } from "@/lib/contract/mfa";
import { MFA_METHODS } from "./mfa-methods";

describe("MFA methods in the browser", () => {
  it("are the contract's, in its order", () => {
    expect(MFA_METHODS).toEqual(CONTRACT);
  });
});
