"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { IntentLink } from "@/components/common/intent-link";
import { usePathname } from "next/navigation";
import { useCallback, useSyncExternalStore } from "react";
import type * as React from "react";
import { projectKeys, reservationKeys, securityKeys } from "@/lib/query/keys";
import type { Project } from "@/lib/query/projects";
import type { ReservationsGetResponse } from "@/lib/query/reservations";
import type { ScimIntegrationResponse } from "@/lib/query/security";

/** Words the URL spells in lower case that people spell otherwise. */
const WORDS: Record<string, string> = { sso: "SSO", mfa: "MFA", scim: "SCIM", iam: "IAM", gpu: "GPU", s3: "S3", api: "API" };

function words(segment: string): string {
  const text = segment
    .split("-")
    .map((w) => WORDS[w.toLowerCase()] ?? w)
    .join(" ");
  return text.replace(/^[a-z]/, (c) => c.toUpperCase());
}

/** Nothing, on the server and while hydrating: the shell renders before the page has put its data in the cache. */
const noData = () => undefined;

/**
 * What the cache holds under `key`, read without creating a query there. A query the shell made
 * (even a disabled one) would be in the cache before the page's HydrationBoundary renders, which
 * then hydrates that query's data only in an effect after commit: the page would render its
 * loading state on the server and draw itself again in the browser.
 */
function useCachedData<T>(key: QueryKey | null): T | undefined {
  const client = useQueryClient();
  const subscribe = useCallback((onChange: () => void) => client.getQueryCache().subscribe(onChange), [client]);
  return useSyncExternalStore(subscribe, () => (key ? client.getQueryData<T>(key) : undefined), noData);
}

/** The objects a crumb names: where the page's detail query keeps one, its name there, and its kind until then. */
interface ObjectKind<T> {
  key: (orgId: string, id: string) => QueryKey;
  name: (data: T) => string | undefined;
  kind: string;
}
const objectKind = <T,>(kind: ObjectKind<T>) => kind as ObjectKind<unknown>;
const OBJECTS = new Map<string, ObjectKind<unknown>>([
  ["projects", objectKind<Project>({ key: (_, id) => projectKeys.detail(id), name: (p) => p.name, kind: "Project" })],
  ["reservations", objectKind<ReservationsGetResponse>({ key: reservationKeys.detail, name: (r) => r.items[0]?.product_line, kind: "Reservation" })],
  ["scim", objectKind<ScimIntegrationResponse>({ key: securityKeys.scimIntegration, name: (i) => i.name, kind: "Integration" })],
]);

/**
 * An object's name from what the page already holds (its detail query, which the page loaded on
 * the server): read from the cache by key, never fetched here, so the crumb costs no request of its
 * own, and the shell no area's query code. Until the name is there, the kind of object, never its raw id.
 */
function useObjectName(orgId: string, parent: string | undefined, id: string): string | null {
  const object = parent === undefined ? undefined : OBJECTS.get(parent);
  const data = useCachedData<unknown>(object ? object.key(orgId, id) : null);
  if (!object) return null;
  return (data === undefined ? undefined : object.name(data)) ?? object.kind;
}

function Crumb({ orgId, segments, index, labels }: { orgId: string; segments: string[]; index: number; labels: Record<string, string> }) {
  const segment = decodeURIComponent(segments[index]!);
  const path = segments.slice(0, index + 1).join("/");
  const name = useObjectName(orgId, segments[index - 1], segment);
  return <>{labels[path] ?? name ?? words(segment)}</>;
}

/** Organization › area › detail, from the URL, with objects by name. */
export function Breadcrumbs({ orgId, orgName, labels, separator }: { orgId: string; orgName: string; labels: Record<string, string>; separator: React.ReactNode }) {
  const pathname = usePathname() ?? "";
  const base = `/orgs/${orgId}`;
  const rest = pathname.startsWith(base) ? pathname.slice(base.length).split("/").filter(Boolean) : [];
  return (
    <nav aria-label="Breadcrumb" className="min-w-0">
      <ol className="flex items-center gap-1 truncate text-sm text-slate-600 dark:text-slate-400">
        <li className="truncate">
          <IntentLink href={base} className="hover:text-slate-900 dark:hover:text-white">
            {orgName}
          </IntentLink>
        </li>
        {rest.map((_, i) => {
          const href = `${base}/${rest.slice(0, i + 1).join("/")}`;
          const label = <Crumb orgId={orgId} segments={rest} index={i} labels={labels} />;
          return (
            <li key={href} className="flex items-center gap-1 truncate">
              {separator}
              {i === rest.length - 1 ? (
                <span aria-current="page" className="truncate font-medium text-slate-900 dark:text-white">
                  {label}
                </span>
              ) : (
                <IntentLink href={href} className="truncate hover:text-slate-900 dark:hover:text-white">
                  {label}
                </IntentLink>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
