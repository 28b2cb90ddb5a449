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
