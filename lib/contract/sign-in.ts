import { z } from "zod";

/** The sign-in form: an API key pair as the platform issues it. Browser-safe. */
export const apiKeySignInSchema = z.object({
  access_key_id: z.string().trim().min(1, "Enter the access key ID").max(128, "An access key ID is at most 128 characters"),
  secret_key: z
    .string()
    .trim()
    .min(1, "Enter the secret key")
    .max(512, "A secret key is at most 512 characters")
    .regex(/^[A-Za-z0-9_-]+$/, "A secret key holds only letters, digits, - and _"),
});

export type ApiKeySignIn = z.infer<typeof apiKeySignInSchema>;

/** The SSO form: the person's e-mail, whose domain picks the organization's provider. Browser-safe. */
export const ssoSignInSchema = z.object({
  email: z.string().trim().toLowerCase().max(254, "An e-mail address is at most 254 characters").pipe(z.email("Enter your work e-mail address")),
});

export type SsoSignIn = z.infer<typeof ssoSignInSchema>;

/** The domain of an e-mail address, lower-case ("" without one). */
export function emailDomainOf(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? "" : email.slice(at + 1).trim().toLowerCase();
}
