import { describe, expect, it } from "vitest";
import { RESERVATION_STATUSES as CONTRACT } from "@/lib/contract/reservations";
import { RESERVATION_STATUSES } from "./statuses";

describe("reservation statuses in the browser", () => {
  it("are the contract's, in its order", () => {
    expect(RESERVATION_STATUSES).toEqual(CONTRACT);
  });
});
