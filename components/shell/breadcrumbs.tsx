"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
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

/**
 * An object's name from what the page already holds (its detail query, which the page loaded on
 * the server): read from the cache by key, never fetched here, so the crumb costs no request of its
 * own, and the shell no area's query code. Until the name is there, the kind of object, never its raw id.
 */
function useObjectName(orgId: string, parent: string | undefined, id: string): string | null {
  const project = useQuery<Project>({ queryKey: projectKeys.detail(id), enabled: false });
  const reservation = useQuery<ReservationsGetResponse>({ queryKey: reservationKeys.detail(orgId, id), enabled: false });
  const scim = useQuery<ScimIntegrationResponse>({ queryKey: securityKeys.scimIntegration(orgId, id), enabled: false });
  if (parent === "projects") return project.data?.name ?? "Project";
  if (parent === "reservations") return reservation.data?.items[0]?.product_line ?? "Reservation";
  if (parent === "scim") return scim.data?.name ?? "Integration";
  return null;
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
          <Link href={base} className="hover:text-slate-900 dark:hover:text-white">
            {orgName}
          </Link>
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
                <Link href={href} className="truncate hover:text-slate-900 dark:hover:text-white">
                  {label}
                </Link>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
