"use client";

import { useQuery } from "@tanstack/react-query";
import { IntentLink } from "@/components/common/intent-link";
import { isPartial, peopleQueries, personHref, type Person } from "@/lib/query/people";

type Directory = NonNullable<ReturnType<typeof useDirectoryQuery>["data"]>;
const NO_ONE = new Map<string, Directory["items"][number]>();
/** Each answer's Map, made once and shared by every name that reads it (a table calls the hook once a row). */
const byIdOf = new WeakMap<Directory, Map<string, Directory["items"][number]>>();

const useDirectoryQuery = (orgId: string) => useQuery({ ...peopleQueries.directory(orgId), staleTime: 60_000 });

/** Id → person, from the organization's directory (one query, shared by every name on the page). */
export function usePeopleDirectory(orgId: string) {
  const directory = useDirectoryQuery(orgId);
  const data = directory.data;
  let byId = data ? byIdOf.get(data) : NO_ONE;
  if (!byId && data) byIdOf.set(data, (byId = new Map(data.items.map((p) => [p.id, p]))));
  return { directory, byId: byId ?? NO_ONE };
}

/**
 * A person of the organization by id: from the directory, or, when the organization has more people
 * than its first page holds and this one is not among them, looked up by id (batched with the other
 * names asked at the same moment). `person` is undefined while unknown, or when not a person of the
 * organization; `looking` and `failed` tell a lookup under way or failed from the latter.
 */
export function usePersonLookup(orgId: string, userId: string | null): { person: Person | undefined; looking: boolean; failed: boolean } {
  const { directory, byId } = usePeopleDirectory(orgId);
  const known = userId ? byId.get(userId) : undefined;
  const lookUp = Boolean(userId) && !known && isPartial(directory.data);
  const looked = useQuery({ ...peopleQueries.person(orgId, userId ?? ""), enabled: lookUp, staleTime: 60_000 });
  if (known) return { person: known, looking: false, failed: false };
  if (!lookUp) return { person: undefined, looking: Boolean(userId) && directory.isPending, failed: false };
  return { person: looked.data ?? undefined, looking: looked.isPending, failed: looked.isError };
}

/** The person of this id, as `usePersonLookup` finds them (undefined while unknown). */
export const usePerson = (orgId: string, userId: string | null): Person | undefined => usePersonLookup(orgId, userId).person;

/**
 * A person by name and e-mail, linking to them on the People page; their id only while they are
 * looked up, when the lookup failed, or when they are no longer a person of this organization.
 */
export function PersonName({ orgId, userId, fallbackEmail }: { orgId: string; userId: string; fallbackEmail?: string }) {
  const { person, looking, failed } = usePersonLookup(orgId, userId);
  if (!person) {
    return fallbackEmail ? (
      <span title={userId}>{fallbackEmail}</span>
    ) : (
      <code className="font-mono text-xs" title={looking ? "Looking up…" : failed ? "Could not be looked up: reload to try again" : "Not a person of this organization"}>
        {userId.slice(0, 8)}…
      </code>
    );
  }
  return (
    <IntentLink href={personHref(orgId, person.email)} className="group inline-flex min-w-0 flex-col leading-tight hover:underline" title={person.id}>
      <span className="truncate font-medium text-slate-900 dark:text-slate-100">{person.name || person.email}</span>
      {person.name ? <span className="truncate text-xs text-slate-600 dark:text-slate-400">{person.email}</span> : null}
    </IntentLink>
  );
}
