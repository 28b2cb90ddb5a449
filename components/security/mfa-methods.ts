import type { MfaMethod } from "@/lib/contract/mfa";

/**
 * The contract's MFA methods, for the browser: importing them from lib/contract
 * would bring zod into the MFA page. The types below fail to compile if either
 * list gains a value the other lacks; mfa-methods.test.ts compares the order.
 */
export const MFA_METHODS = ["totp", "webauthn"] as const satisfies readonly MfaMethod[];

type Missing = Exclude<MfaMethod, (typeof MFA_METHODS)[number]>;
export const everyMethodListed: [Missing] extends [never] ? true : Missing = true;
