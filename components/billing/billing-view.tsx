"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useQueryStates } from "nuqs";
import { useMemo } from "react";
import { FilterSelects } from "@/components/spend/filter-selects";
import { projectLabeler } from "@/components/spend/project-labels";
import { resolveRange } from "@/components/spend/date-range";
import { RangePicker } from "@/components/spend/range-picker";
import { Card, CardBody } from "@/components/ui/card";
import { useDeferredQuery } from "@/components/ui/query-state";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";
import { compareNames } from "@/lib/compare";
import { billingQueries, type BillingOptions, type DayRange } from "@/lib/query/billing";
import { projectQueries } from "@/lib/query/projects";
import { cn } from "@/lib/utils";
import { productLinesOf, type CostSummary } from "./aggregate";
import { BillingExportButton } from "./export-button";
import { costSummaryQuery } from "./queries";
import { billingSearchParams } from "./search-params";
import { SpendSections } from "./spend-sections";
import { SpendSummary } from "./spend-summary";

/** The billing page: spend by day and project over a range, totals, forecast and export. */
export function BillingView({ orgId, today }: { orgId: string; today: string }) {
  const [state, setState] = useBillingSearch();
  // "Today" comes from the server's render, so the browser reads the very keys the server prefetched.
  const now = useMemo(() => new Date(`${today}T12:00:00Z`), [today]);
  const resolved = resolveRange(state.range, state.from, state.to, now);
  const range = resolved.ok ? resolved.range : null;
  const mtd = resolveRange("mtd", null, null, now);
  const filters = { projects: state.projects, resource_types: state.resource_types, regions: state.regions };

  const projects = useQuery(projectQueries.list());
  const options = useQuery({ ...billingQueries.options(orgId, range ?? mtdRange(mtd)), enabled: range !== null });
  const label = projectLabeler(projects.data, orgId, options.data?.project_names);
  // Summaries of the cost rows for the filters (the server sends the page's; the browser computes the
  // next from the rows, fetched once). When the range is the month to date, both are the same query.
  const costs = useQuery({ ...costSummaryQuery(orgId, range ?? mtdRange(mtd), filters), enabled: range !== null });
  const monthToDate = useQuery(costSummaryQuery(orgId, mtdRange(mtd), filters));
  // A new summary's rendering is deferred: React renders it in slices between which the browser stays
  // responsive, instead of in one task when the data lands.
  const period = useDeferredQuery(costs);
  const month = useDeferredQuery(monthToDate);
  // The previous filters' numbers stand in while the new ones are computed from rows being fetched: said, and dimmed.
  const updating = costs.isPlaceholderData || monthToDate.isPlaceholderData;

  // Filter values: what the options list, plus anything in the costs (reserved usage is not in the options).
  const values = (fromOptions: string[] | undefined, field: keyof CostSummary["values"]) =>
    [...new Set([...(fromOptions ?? []), ...(period.data?.values[field] ?? [])])].sort();

  return (
    <div className="space-y-6">
      <BillingFilters
        orgId={orgId}
        search={state}
        setSearch={setState}
        resolved={resolved}
        options={options}
        values={values}
        label={label}
        updating={updating}
      />

      <div className={cn("space-y-6 transition-opacity", updating && "opacity-60")} aria-busy={updating} data-testid="spend">
        <SpendSummary period={period} month={month} now={now} rangeValid={range !== null} />

        {range === null ? null : period.isError ? (
          <Card>
            <ErrorState error={period.error} what="billing" onRetry={() => void period.refetch()} />
          </Card>
        ) : period.data === undefined ? (
          <Card>
            <WidgetSkeleton label="spend" lines={6} />
          </Card>
        ) : (
          <SpendSections summary={period.data} label={label} />
        )}
      </div>
    </div>
  );
}

type BillingSearch = ReturnType<typeof useBillingSearch>[0];
const useBillingSearch = () => useQueryStates(billingSearchParams, { history: "push" });

/** The range, the filters (kept in the URL) and the export. */
function BillingFilters({
  orgId,
  search: state,
  setSearch: setState,
  resolved,
  options,
  values,
  label,
  updating,
}: {
  orgId: string;
  search: BillingSearch;
  setSearch: ReturnType<typeof useBillingSearch>[1];
  resolved: ReturnType<typeof resolveRange>;
  options: UseQueryResult<BillingOptions>;
  values: (fromOptions: string[] | undefined, field: keyof CostSummary["values"]) => string[];
  label: (id: string) => string;
  /** The numbers below are the previous filters' until the new ones are computed. */
  updating: boolean;
}) {
  const range = resolved.ok ? resolved.range : null;
  return (
    <Card>
      <CardBody className="space-y-4">
        <RangePicker
          key={`${state.range}:${state.from}:${state.to}`}
          preset={state.range}
          current={range}
          error={resolved.ok ? undefined : resolved.error}
          onPreset={(preset) => void setState({ range: preset, from: null, to: null })}
          onCustom={(from, to) => void setState({ range: "custom", from, to })}
        />
        <FilterSelects
          value={state}
          onChange={(change) => void setState(change)}
          projects={byLabel(values(options.data?.projects, "project_id").map((id) => ({ value: id, label: label(id) })))}
          resourceTypes={values(options.data?.resource_types, "resource_type").map((v) => ({ value: v }))}
          regions={values(options.data?.regions, "region").map((v) => ({ value: v }))}
          resourceTypesLabel="Product lines"
          action={
            <BillingExportButton
              orgId={orgId}
              loading={options.isLoading}
              options={options.data}
              projectLabel={label}
              pageResourceTypes={state.resource_types}
              defaults={{
                projects: state.projects,
                regions: state.regions,
                product_lines: productLinesOf(state.resource_types, options.data?.product_lines ?? []),
                start_date: range?.start_date ?? "",
                end_date: range?.end_date ?? "",
              }}
            />
          }
        />
        {range ? (
          <p className="text-sm text-slate-600 dark:text-slate-300">
            Showing <span className="font-medium">{range.start_date}</span> to <span className="font-medium">{range.end_date}</span> (UTC days)
            {options.isError ? <span className="text-amber-700 dark:text-amber-400"> · filter values could not be loaded</span> : null}
            {/* Always present, so that a screen reader announces its change. */}
            <span role="status">{updating ? " · updating for the new filters…" : ""}</span>
          </p>
        ) : null}
      </CardBody>
    </Card>
  );
}

/** Options in the order a reader looks for them. */
function byLabel<T extends { label: string }>(options: T[]): T[] {
  return [...options].sort((a, b) => compareNames(a.label, b.label));
}

function mtdRange(mtd: ReturnType<typeof resolveRange>): DayRange {
  return mtd.ok ? mtd.range : { start_date: "", end_date: "" };
}
