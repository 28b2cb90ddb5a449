"use client";

import { ChevronRight } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function labelFor(segment: string, path: string, labels: Record<string, string>): string {
  const text = decodeURIComponent(segment);
  // An id is shown as itself (shortened), not as words.
  if (UUID.test(text)) return `${text.slice(0, 8)}…`;
  return labels[path] ?? text.replace(/-/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** Organization › area › detail, from the URL. */
export function Breadcrumbs({ orgId, orgName, labels }: { orgId: string; orgName: string; labels: Record<string, string> }) {
  const pathname = usePathname() ?? "";
  const base = `/orgs/${orgId}`;
  const rest = pathname.startsWith(base) ? pathname.slice(base.length).split("/").filter(Boolean) : [];
  const crumbs = rest.map((segment, i) => {
    const path = rest.slice(0, i + 1).join("/");
    return { href: `${base}/${path}`, label: labelFor(segment, path, labels) };
  });
  return (
    <nav aria-label="Breadcrumb" className="min-w-0">
      <ol className="flex items-center gap-1 truncate text-sm text-slate-500 dark:text-slate-400">
        <li className="truncate">
          <Link href={base} className="hover:text-slate-900 dark:hover:text-white">
            {orgName}
          </Link>
        </li>
        {crumbs.map((c, i) => (
          <li key={c.href} className="flex items-center gap-1 truncate">
            <ChevronRight className="size-3.5 shrink-0" aria-hidden />
            {i === crumbs.length - 1 ? (
              <span aria-current="page" className="truncate font-medium text-slate-900 dark:text-white">
                {c.label}
              </span>
            ) : (
              <Link href={c.href} className="truncate hover:text-slate-900 dark:hover:text-white">
                {c.label}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
