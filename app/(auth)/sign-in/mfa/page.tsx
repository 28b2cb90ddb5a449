import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { MfaStep } from "@/components/mfa/mfa-step";
import { mfaStepState } from "@/lib/console/mfa";
import { resolveConsoleSession, signInPath } from "@/lib/console/session";
import { finishSignInPath, safeCallbackPath } from "@/lib/contract/sign-in-messages";

export const metadata: Metadata = { title: "Verify it's you" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The second step of signing in, for a session that still owes its second factor. */
export default async function MfaStepPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const raw = params.callbackUrl;
  const callbackPath = safeCallbackPath(Array.isArray(raw) ? raw[0] : raw);
  const state = await resolveConsoleSession();
  if (state.status === "active") redirect(callbackPath);
  if (state.status !== "mfa") redirect(signInPath(state.status));
  const step = await mfaStepState(state.session);
  // Nothing is owed any more though nothing was given (an organization stopped requiring MFA while the
  // step waited): the step ends. Once a factor was given, the page the answer's action renders again
  // (it set the moved session's cookie) stays: the step shows what it must (recovery codes, shown once)
  // and goes on to the step's end itself.
  const answered = state.session.factors.some((f) => f !== "api_key" && f !== "sso");
  if (step.organizations.every((o) => o.satisfied) && !answered) redirect(finishSignInPath(callbackPath));
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <h1 className="text-2xl font-semibold tracking-tight">Verify it&apos;s you</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Signed in as {state.session.email}.</p>
      <div className="mt-6">
        <MfaStep step={step} callbackPath={callbackPath} />
      </div>
    </div>
  );
}
