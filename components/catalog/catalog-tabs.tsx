"use client";

import { IntentLink } from "@/components/common/intent-link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

const TABS = [
  { href: "/catalog", label: "Capacity & locations" },
  { href: "/catalog/images", label: "Images" },
  { href: "/catalog/registry", label: "Container registry" },
];

/** The catalog's sections; the current one is marked for assistive technology. */
export function CatalogTabs() {
  const pathname = usePathname() ?? "";
  return (
    <nav aria-label="Catalog sections" className="-mt-2 mb-6 overflow-x-auto border-b border-slate-200 dark:border-slate-800">
      <ul className="flex gap-1">
        {TABS.map((tab) => {
          const active = tab.href === "/catalog" ? pathname === "/catalog" : pathname === tab.href || pathname.startsWith(`${tab.href}/`);
          return (
            <li key={tab.href}>
              <IntentLink
                href={tab.href}
                aria-current={active ? "page" : undefined}
                className={cn(
                  "-mb-px inline-block whitespace-nowrap border-b-2 px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
                  active
                    ? "border-brand-600 font-medium text-slate-900 dark:text-white"
                    : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white",
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
