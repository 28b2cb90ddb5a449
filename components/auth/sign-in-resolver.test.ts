import { describe, expect, it } from "vitest";
import { apiKeySignInSchema, type ApiKeySignIn } from "@/lib/contract/sign-in";
import { signInResolver } from "./sign-in-resolver";

const CASES: ApiKeySignIn[] = [
  { access_key_id: "AKID", secret_key: "c2VjcmV0_-" },
  { access_key_id: "  AKID  ", secret_key: "  abc  " },
  { access_key_id: "", secret_key: "" },
  { access_key_id: "   ", secret_key: "abc" },
  { access_key_id: "x".repeat(128), secret_key: "a".repeat(512) },
  { access_key_id: "x".repeat(129), secret_key: "a".repeat(513) },
  { access_key_id: "id", secret_key: "not/base64url=" },
  { access_key_id: "id", secret_key: "a b" },
  { access_key_id: "id", secret_key: "ä".repeat(600) },
];

describe("the sign-in form's resolver", () => {
  it.each(CASES)("agrees with apiKeySignInSchema on %j", async (input) => {
    const ours = await signInResolver(input, undefined, { fields: {}, shouldUseNativeValidation: false });
    const parsed = apiKeySignInSchema.safeParse(input);
    if (parsed.success) {
      expect(ours.errors).toEqual({});
      expect(ours.values).toEqual(parsed.data);
    } else {
      // The first problem of each field, as zodResolver reports it.
      const first: Record<string, string> = {};
      for (const issue of parsed.error.issues) first[String(issue.path[0])] ??= issue.message;
      expect(Object.fromEntries(Object.entries(ours.errors).map(([k, v]) => [k, (v as { message: string }).message]))).toEqual(first);
    }
  });
});
