"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, ChevronsLeft, FileBraces, FileDown } from "lucide-react";
import { useQueryStates } from "nuqs";
import { Suspense, useEffect, useRef, useState } from "react";
import { IntentLink } from "@/components/common/intent-link";
import { lazyComponent } from "@/components/common/lazy";
import { auditTargetHref } from "@/components/common/object-links";
import { PersonName } from "@/components/common/person-name";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Select } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { AUDIT_PAGE_SIZES, AUDIT_WINDOWS, auditLogQuery, type AuditSearch, type LogEntry } from "@/lib/query/audit-logs";
import { catalogQueries } from "@/lib/query/catalog";
import { projectQueries } from "@/lib/query/projects";
import { AuditFiltersForm } from "./filters-form";
import { resultTone } from "./format";
import { LocalInstant } from "./local-instant";
import { auditSearchParams } from "./search-params";
import { compareNames } from "@/lib/compare";

// The entry sheet (Radix dialog, focus management) is fetched when an entry is first opened.
const EntrySheet = lazyComponent(() => import("./entry-sheet").then((m) => m.EntrySheet));

/** The audit-log search: filters, one page of entries, paging by token, details and exports. */
export function AuditLogView({ orgId }: { orgId: string }) {
  const [search, setSearch] = useQueryStates(auditSearchParams, { history: "push" });
  const [selected, setSelected] = useState<LogEntry | null>(null);
  const page = useQuery({ ...auditLogQuery(orgId, search), placeholderData: keepPreviousData });
  const projects = useQuery(projectQueries.list());
  const locations = useQuery(catalogQueries.locations());

  const projectOptions = (projects.data?.items ?? []).filter((p) => p.organization_id === orgId).map((p) => ({ value: p.id, label: p.name }))
    .sort((a, b) => compareNames(a.label, b.label));
  const windowInfo = AUDIT_WINDOWS.find((w) => w.value === search.window);
  const paged = search.next !== null || search.prev !== null;
  const items = page.data?.items ?? [];

  const columns = auditColumns(orgId, setSelected);

  return (
    <div className="space-y-6">
      <Card>
        <CardBody>
          <AuditFiltersForm
            key={JSON.stringify({ ...search, next: null, prev: null, limit: null })}
            search={search}
            projects={projectOptions}
            locations={locations.data?.items ?? []}
            onApply={(change) => void setSearch(change)}
          />
        </CardBody>
      </Card>

      <Card>
        <CardHeader
          title="Entries"
          description={`${windowInfo?.label ?? ""}, newest first${paged ? "" : " · first page"}`}
          // The previous filters' rows stay on screen while the new ones load: saving them then would file them under the new filters.
          // Keyed by the filters (not the page): new filters end an export of the old ones, which would file its entries
          // beside them.
          action={
            <ExportButtons
              key={JSON.stringify({ ...search, next: null, prev: null, limit: null })}
              orgId={orgId}
              search={search}
              disabled={page.isPlaceholderData || items.length === 0}
            />
          }
        />
        <QueryState state={page} what="the audit log" label="audit-log entries" lines={8}>
          {(data) => (
            <CardBody className="space-y-4" aria-busy={page.isFetching} data-testid="audit-results">
              {items.length === 0 ? (
                <EmptyState title="No entries match">Widen the time window or remove a filter.</EmptyState>
              ) : (
                <DataTable
                  label="Audit-log entries"
                  columns={columns}
                  data={items}
                  onRowClick={setSelected}
                  // relative: the header's screen-reader-only label stays inside the scrolling box, not past the page's edge.
                  className={page.isPlaceholderData ? "relative opacity-60" : "relative"}
                />
              )}
              <Pager search={search} data={data} loading={page.isFetching} stale={page.isPlaceholderData} onChange={(change) => void setSearch(change)} />
            </CardBody>
          )}
        </QueryState>
      </Card>
      {selected ? (
        <Suspense fallback={null}>
          <EntrySheet entry={selected} onClose={() => setSelected(null)} />
        </Suspense>
      ) : null}
    </div>
  );
}

/** The entries table's columns; "Details" opens an entry. */
function auditColumns(orgId: string, onDetails: (entry: LogEntry) => void): ColumnDef<LogEntry, unknown>[] {
  return [
    {
      id: "time",
      accessorFn: (e) => e.start_time,
      header: "Time",
      cell: ({ row }) => (
        // Date above time: the column stays narrow enough for the result and details to stay in view at 1440 px.
        <LocalInstant value={row.original.start_time} className="inline-block max-w-[9rem] whitespace-normal tabular-nums" />
      ),
    },
    {
      id: "action",
      accessorFn: (e) => e.action_detail || e.action,
      header: "Action",
      cell: ({ getValue }) => <span className="inline-block max-w-[12rem] whitespace-normal">{String(getValue())}</span>,
    },
    { id: "actor", accessorFn: (e) => e.actor_email || e.actor_id, header: "Actor", cell: ({ row }) => <ActorCell orgId={row.original.organization_id} entry={row.original} /> },
    {
      id: "target",
      accessorFn: (e) => `${e.target_type} ${e.target_names.join(", ")}`,
      header: "Target",
      cell: ({ row }) => {
        const href = auditTargetHref(orgId, row.original);
        const names = row.original.target_names.join(", ");
        return (
          // Long targets wrap rather than push the result and the details off the table's edge.
          <span className="inline-block max-w-[15rem] whitespace-normal break-words">
            <span className="text-slate-500 dark:text-slate-400">{row.original.target_type}</span>{" "}
            {href && names ? (
              <IntentLink href={href} onClick={(e) => e.stopPropagation()} className="text-brand-600 hover:underline dark:text-brand-400">
                {names}
              </IntentLink>
            ) : (
              names
            )}
          </span>
        );
      },
    },
    { id: "project", accessorFn: (e) => e.project_name, header: "Project" },
    { accessorKey: "result", header: "Result", cell: ({ row }) => <Badge tone={resultTone(row.original.result)}>{row.original.result}</Badge> },
    { accessorKey: "surface", header: "Surface" },
    {
      id: "details",
      header: () => <span className="sr-only">Details</span>,
      enableSorting: false,
      cell: ({ row }) => (
        <Button
          size="sm"
          variant="ghost"
          onClick={(e) => {
            e.stopPropagation();
            onDetails(row.original);
          }}
          aria-label={`Details of ${row.original.action_detail || row.original.action} at ${row.original.start_time}`}
        >
          Details
        </Button>
      ),
    },
  ];
}

/**
 * Saves every entry the filters match (not only the page on screen), up to the newest 10,000, as CSV or JSON; the
 * export code is fetched on the first click. Says how far it got while it walks the pages, and Cancel stops it.
 */
function ExportButtons({ orgId, search, disabled }: { orgId: string; search: AuditSearch; disabled: boolean }) {
  const [progress, setProgress] = useState<{ count: number; abort: AbortController } | null>(null);
  const [outcome, setOutcome] = useState<{ tone: "status" | "alert"; text: string } | null>(null);
  // An export under way ends with the page: leaving it cancels the walk.
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);
  // The export button pressed: focus goes back to it when Cancel, which holds it meanwhile, goes away.
  const pressed = useRef<HTMLButtonElement | null>(null);
  const save = async (ext: "csv" | "json", button: HTMLButtonElement) => {
    const abort = new AbortController();
    running.current = abort;
    pressed.current = button;
    setOutcome(null);
    setProgress({ count: 0, abort });
    try {
      const m = await import("./export");
      const collected = await m.collectEntries(orgId, search, (count) => setProgress({ count, abort }), abort.signal);
      if (abort.signal.aborted) {
        setOutcome({ tone: "status", text: "Export cancelled." });
        return;
      }
      await m.saveEntries(collected, ext);
      const count = collected.entries.length.toLocaleString("en-US");
      setOutcome({
        tone: "status",
        text: collected.truncated
          ? `Exported the newest ${count} entries of more that match: narrow the time window for the rest.`
          : `Exported ${count} ${collected.entries.length === 1 ? "entry" : "entries"}.`,
      });
    } catch (error) {
      if (abort.signal.aborted) {
        setOutcome({ tone: "status", text: "Export cancelled." });
        return;
      }
      setOutcome({ tone: "alert", text: `The export failed: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      setProgress((p) => (p?.abort === abort ? null : p));
    }
  };
  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex flex-wrap gap-2">
        {progress ? (
          <Button
            size="sm"
            variant="secondary"
            onClick={() => {
              progress.abort.abort();
              pressed.current?.focus();
            }}
          >
            Cancel export
          </Button>
        ) : null}
        {/* Waiting, not disabled, while an export runs: the button pressed keeps the keyboard's focus. */}
        <Button size="sm" variant="secondary" disabled={disabled} waiting={progress !== null} onClick={(e) => void save("csv", e.currentTarget)}>
          <FileDown /> Export CSV
        </Button>
        <Button size="sm" variant="secondary" disabled={disabled} waiting={progress !== null} onClick={(e) => void save("json", e.currentTarget)}>
          <FileBraces /> Export JSON
        </Button>
      </div>
      {progress ? (
        <p role="status" className="text-xs text-slate-500 dark:text-slate-400">
          Exporting… {progress.count.toLocaleString("en-US")} entries so far
        </p>
      ) : outcome ? (
        <p role={outcome.tone} className={outcome.tone === "alert" ? "text-xs text-red-700 dark:text-red-400" : "text-xs text-slate-500 dark:text-slate-400"}>
          {outcome.text}
        </p>
      ) : null}
    </div>
  );
}

function ActorCell({ orgId, entry }: { orgId: string; entry: LogEntry }) {
  return (
    <span className="inline-block max-w-[13rem] whitespace-normal break-all">
      {entry.actor_type === "user" || entry.actor_type === "" ? <PersonName orgId={orgId} userId={entry.actor_id} fallbackEmail={entry.actor_email || entry.actor_id} /> : entry.actor_email || entry.actor_id}
      {entry.actor_type && entry.actor_type !== "user" ? <span className="ml-1 text-xs text-slate-500 dark:text-slate-400">({entry.actor_type})</span> : null}
    </span>
  );
}

function Pager({
  search,
  data,
  loading,
  stale,
  onChange,
}: {
  search: AuditSearch;
  data: { items: LogEntry[]; next_page_token: string; prev_page_token: string };
  loading: boolean;
  /** The data is the previous filters' page, kept on screen while the new one loads. */
  stale: boolean;
  onChange: (change: Partial<AuditSearch>) => void;
}) {
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <label htmlFor="audit-page-size">Page size</label>
        <div className="w-24">
          <Select
            id="audit-page-size"
            value={String(search.limit)}
            onChange={(e) => {
              const size = AUDIT_PAGE_SIZES.find((n) => String(n) === e.target.value);
              if (size) onChange({ limit: size, next: null, prev: null });
            }}
          >
            {AUDIT_PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Select>
        </div>
        <span className="text-slate-500 dark:text-slate-400" aria-live="polite">
          {loading ? "Loading…" : `${data.items.length} ${data.items.length === 1 ? "entry" : "entries"} on this page`}
        </span>
      </div>
      {/* While the previous page is on screen (stale), its tokens would page through its filters' results, skipping the new filters' first page: the buttons wait, keeping the focus of a page turned from the keyboard. */}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" variant="secondary" disabled={search.next === null && search.prev === null} onClick={() => onChange({ next: null, prev: null })}>
          <ChevronsLeft /> Newest
        </Button>
        <Button size="sm" variant="secondary" waiting={stale} disabled={!data.prev_page_token} onClick={() => onChange({ prev: data.prev_page_token, next: null })}>
          <ChevronLeft /> Previous page
        </Button>
        <Button size="sm" variant="secondary" waiting={stale} disabled={!data.next_page_token} onClick={() => onChange({ next: data.next_page_token, prev: null })}>
          Next page <ChevronRight />
        </Button>
      </div>
    </nav>
  );
}
