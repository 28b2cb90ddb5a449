import type { Metadata } from "next";
import { AccountSecurity } from "@/components/mfa/account-security";
import { PageHeader } from "@/components/ui/page-header";
import { gatewayIsEmbedded } from "@/lib/console/config";
import { factorsManagedElsewhere, mustConfirmItsYou, ownFactors } from "@/lib/console/mfa";
import { requireConsoleSession } from "@/lib/console/session";

export const metadata: Metadata = { title: "Sign-in security" };

/** The person's own second factors and recovery codes, and how this session signed in. */
export default async function AccountSecurityPage() {
  const session = await requireConsoleSession();
  const own = gatewayIsEmbedded() ? await ownFactors(session.userId) : null;
  const locked = own !== null && (await factorsManagedElsewhere(session));
  const confirm = own !== null && !locked && (await mustConfirmItsYou(session));
  return (
    <>
      <PageHeader title="Sign-in security" description="Your second factors for signing in to the console, and your recovery codes." />
      <AccountSecurity own={own} sessionFactors={[...session.factors]} locked={locked} confirm={confirm} />
    </>
  );
}
