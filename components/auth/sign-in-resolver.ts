import type { Resolver } from "react-hook-form";
import type { ApiKeySignIn } from "@/lib/contract/sign-in";

type Errors = Partial<Record<keyof ApiKeySignIn, { type: string; message: string }>>;

/**
 * The sign-in form's rules, as lib/contract/sign-in's apiKeySignInSchema states them
 * (the server checks that schema again), written out so the sign-in page does not
 * load zod. sign-in-resolver.test.ts holds the two to the same answers.
 */
export const signInResolver: Resolver<ApiKeySignIn> = (raw) => {
  const values = { access_key_id: raw.access_key_id.trim(), secret_key: raw.secret_key.trim() };
  const errors: Errors = {};
  const fail = (name: keyof ApiKeySignIn, message: string) => {
    errors[name] ??= { type: "validate", message };
  };
  if (values.access_key_id.length < 1) fail("access_key_id", "Enter the access key ID");
  if (values.access_key_id.length > 128) fail("access_key_id", "An access key ID is at most 128 characters");
  if (values.secret_key.length < 1) fail("secret_key", "Enter the secret key");
  if (values.secret_key.length > 512) fail("secret_key", "A secret key is at most 512 characters");
  if (values.secret_key.length > 0 && !/^[A-Za-z0-9_-]+$/.test(values.secret_key)) fail("secret_key", "A secret key holds only letters, digits, - and _");
  return Object.keys(errors).length ? { values: {}, errors } : { values, errors: {} };
};
