import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { demoState } from "@/lib/console/demo";
import { mfaStepPath, safeCallbackPath, signInErrorMessage, signInReasonMessage } from "@/lib/contract/sign-in-messages";
import { resolveConsoleSession } from "@/lib/console/session";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackPath = safeCallbackPath(one(params.callbackUrl));
  const reason = one(params.reason);
  const state = await resolveConsoleSession();
  // Already signed in (and not sent here to be told something): straight on.
  if (state.status === "active" && !reason && !one(params.error)) redirect(callbackPath);
  // Signed in, with the second factor still to give.
  if (state.status === "mfa" && !reason && !one(params.error)) redirect(mfaStepPath(callbackPath));

  const demo = await demoState();
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in to Stratus</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        Use your organization&apos;s single sign-on, or an API key of your user. Keys stay on the console&apos;s server; your browser only
        holds a session.
      </p>
      <SignInForm
        callbackPath={callbackPath}
        demo={demo !== "unavailable"}
        preparing={demo === "preparing"}
        initialError={signInErrorMessage(one(params.error))}
        notice={signInReasonMessage(reason)}
      />
    </div>
  );
}
