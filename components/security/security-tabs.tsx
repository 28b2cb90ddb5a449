"use client";

import { IntentLink } from "@/components/common/intent-link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

export const SECURITY_TABS = [
  { segment: "sso", label: "Single sign-on", description: "Identity providers people in this organization sign in with." },
  { segment: "mfa", label: "Multi-factor authentication", description: "The second factors this organization asks for at sign-in." },
  { segment: "scim", label: "SCIM provisioning", description: "Identity providers that create, update and deactivate accounts here." },
] as const;

/** The security section's own heading (each tab its own), under the area's name. */
export function SecurityHeading({ orgId }: { orgId: string }) {
  const pathname = usePathname() ?? "";
  const base = `/orgs/${orgId}/security`;
  const tab = SECURITY_TABS.find((t) => pathname === `${base}/${t.segment}` || pathname.startsWith(`${base}/${t.segment}/`));
  return (
    <div className="mb-6">
      <p className="text-sm font-medium text-slate-600 dark:text-slate-300">Security</p>
      <h1 className="text-2xl font-semibold tracking-tight">{tab?.label ?? "Security"}</h1>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{tab?.description ?? "How people sign in to this organization and how their accounts are provisioned."}</p>
    </div>
  );
}

/** The security area's sections; the URL's path is the selected tab, so it survives refresh, back and sharing. */
export function SecurityTabs({ orgId }: { orgId: string }) {
  const pathname = usePathname() ?? "";
  const base = `/orgs/${orgId}/security`;
  return (
    <nav aria-label="Security sections" className="-mx-1 mb-6 overflow-x-auto border-b border-slate-200 dark:border-slate-800">
      <ul className="flex gap-1 px-1">
        {SECURITY_TABS.map((tab) => {
          const href = `${base}/${tab.segment}`;
          const active = pathname === href || pathname.startsWith(`${href}/`);
          return (
            <li key={tab.segment}>
              <IntentLink
                href={href}
                aria-current={active ? "page" : undefined}
                className={cn(
                  "-mb-px inline-block whitespace-nowrap border-b-2 px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
                  active
                    ? "border-brand-600 font-medium text-slate-900 dark:border-brand-500 dark:text-white"
                    : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white",
                )}
              >
                {tab.label}
              </IntentLink>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
