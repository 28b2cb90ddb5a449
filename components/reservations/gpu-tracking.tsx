"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { Lock } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { useQueryStates } from "nuqs";
import { Suspense, useState } from "react";
import { lazyComponent } from "@/components/common/lazy";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { Field, Select } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState } from "@/components/ui/states";
import { ApiError } from "@/lib/query/fetcher";
import { orgAccess, orgQueries } from "@/lib/query/organizations";
import { gpuTrackingWindow, reservationQueries, type GpuRange, type GpuTrackingFilters, type GpuTrackingResponse, type LatestGpuTracking } from "@/lib/query/reservations";
import { cn } from "@/lib/utils";
import { utcDateTime } from "./format";
import { customRangeProblem } from "./gpu-range";
import { LatestSnapshot } from "./latest-snapshot";
import { gpuTrackingParams } from "./search-params";
import { WhenVisible } from "@/components/ui/when-visible";
import { QueryState } from "@/components/ui/query-state";

// The charts are loaded in the browser only (WhenVisible mounts them only there), once there is data
// to draw; they draw static SVG, and fetch recharts only when the person points at or focuses one
// (components/spend/chart-facade.tsx). React.lazy rather than next/dynamic, whose loader code would
// ride in the page's first load.
const GpuCharts = lazyComponent(() => import("./gpu-charts").then((m) => m.GpuCharts));

// The custom range form (react-hook-form, the contract's rules) is fetched when it is first shown.
const CustomRangeForm = lazyComponent(() => import("./gpu-range-form").then((m) => m.CustomRangeForm));

const PRESETS: Array<{ value: Exclude<GpuRange, "custom">; label: string }> = [
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
];

/** What to show instead of the page when the caller lacks the reservations feature. */
export function FeatureMissing({ orgId, orgName, detail }: { orgId: string; orgName?: string; detail?: string }) {
  return (
    <Card>
      <div role="alert" className="flex flex-col items-center gap-2 px-4 py-10 text-center">
        <Lock className="size-6 text-amber-500" aria-hidden />
        <h2 className="text-base font-semibold">GPU tracking is not enabled for you</h2>
        <p className="max-w-xl text-sm text-slate-600 dark:text-slate-300">
          GPU tracking needs the <strong>reservations</strong> feature, which is not enabled for your user
          {orgName ? ` in ${orgName}` : ""}. An owner of the organization can ask for it to be enabled.
        </p>
        {detail ? <p className="text-sm text-slate-500 dark:text-slate-400">The gateway answered: {detail}</p> : null}
        <IntentLink href={`/orgs/${orgId}/reservations`} className={cn(buttonVariants({ variant: "secondary", size: "sm" }), "mt-2")}>
          See the organization&apos;s reservations
        </IntentLink>
      </div>
    </Card>
  );
}

function distinct(values: string[]): string[] {
  return [...new Set(values)].sort();
}

function GpuTrackingView({ orgId, orgName }: { orgId: string; orgName?: string }) {
  const [params, setParams] = useQueryStates(gpuTrackingParams, { history: "push" });
  const [editingCustom, setEditingCustom] = useState(false);
  const filters: GpuTrackingFilters = {
    range: params.range,
    start: params.start ?? undefined,
    end: params.end ?? undefined,
    product_line: params.product_line ?? undefined,
    region: params.region ?? undefined,
  };
  const localProblem = params.range === "custom" ? customRangeProblem(params.start, params.end) : null;
  const series = useQuery({ ...reservationQueries.gpuTracking(orgId, filters), enabled: localProblem === null });
  // The timestamps' exact rules are the contract's: a range the gateway refuses shows its reason here.
  const rangeProblem = localProblem ?? (params.range === "custom" && series.error instanceof ApiError && series.error.status === 400 ? series.error.message : null);
  const options = useQuery(reservationQueries.gpuTrackingLatest(orgId));
  const latest = useQuery(reservationQueries.gpuTrackingLatest(orgId, { product_line: filters.product_line, region: filters.region }));

  const refused = [series.error, latest.error, options.error].find((e) => e instanceof ApiError && e.status === 403);
  if (refused) return <FeatureMissing orgId={orgId} orgName={orgName} detail={(refused as ApiError).message} />;

  const productLines = distinct([...(options.data?.data ?? []).map((d) => d.product_line), ...(filters.product_line ? [filters.product_line] : [])]);
  const regions = distinct([...(options.data?.data ?? []).map((d) => d.region), ...(filters.region ? [filters.region] : [])]);
  const showCustom = editingCustom || (params.range === "custom" && rangeProblem !== null);
  // The window in words; a preset's end is "now" when the data was fetched.
  const windowText = rangeProblem
    ? null
    : params.range === "custom"
      ? `${utcDateTime(filters.start)} to ${utcDateTime(filters.end)}`
      : `Last ${PRESETS.find((p) => p.value === params.range)?.label ?? params.range}`;
  const presetWindow = gpuTrackingWindow(params.range === "custom" ? filters : { range: params.range });

  return (
    <div className="space-y-6">
      <Card>
        <div className="flex flex-col gap-4 p-4">
          <div className="flex flex-wrap items-end gap-4">
            <RangeButtons
              range={params.range}
              customExpanded={showCustom}
              onPreset={(range) => {
                setEditingCustom(false);
                void setParams({ range, start: null, end: null });
              }}
              onCustom={() => setEditingCustom(true)}
            />
            <FilterSelect id="gpu-product-line" label="Product line" all="All product lines" value={filters.product_line} values={productLines} onChange={(v) => void setParams({ product_line: v })} />
            <FilterSelect id="gpu-region" label="Region" all="All regions" value={filters.region} values={regions} onChange={(v) => void setParams({ region: v })} />
          </div>
          {showCustom ? (
            <div className="space-y-2">
              {rangeProblem && !editingCustom ? (
                <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                  The range in the address cannot be used: {rangeProblem}
                </p>
              ) : null}
              <Suspense fallback={<Skeleton className="h-16" />}>
                <CustomRangeForm
                  start={presetWindow.start_time}
                  end={presetWindow.end_time}
                  onCancel={() => {
                    setEditingCustom(false);
                    if (rangeProblem) void setParams({ range: null, start: null, end: null });
                  }}
                  onApply={(r) => {
                    setEditingCustom(false);
                    void setParams({ range: "custom", start: r.start, end: r.end });
                  }}
                />
              </Suspense>
            </div>
          ) : null}
        </div>
      </Card>
      <UsageSection windowText={windowText} series={rangeProblem ? null : series} />
      <LatestSnapshotCard orgId={orgId} latest={latest} />
    </div>
  );
}

const rangeButtonClass = (pressed: boolean) =>
  cn(
    "rounded px-3 py-1.5 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
    pressed ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
  );

/** The time range's preset buttons and "Custom", which opens the custom range form. */
function RangeButtons({ range, customExpanded, onPreset, onCustom }: { range: GpuRange; customExpanded: boolean; onPreset: (range: Exclude<GpuRange, "custom">) => void; onCustom: () => void }) {
  return (
    <div>
      <p id="gpu-range-label" className="mb-1 text-sm font-medium">
        Time range
      </p>
      <div role="group" aria-labelledby="gpu-range-label" className="inline-flex flex-wrap rounded-md border border-slate-300 p-0.5 dark:border-slate-700">
        {PRESETS.map((p) => (
          <button key={p.value} type="button" aria-pressed={range === p.value} onClick={() => onPreset(p.value)} className={rangeButtonClass(range === p.value)}>
            {p.label}
          </button>
        ))}
        <button
          type="button"
          aria-pressed={range === "custom"}
          aria-expanded={customExpanded}
          onClick={onCustom}
          onPointerEnter={CustomRangeForm.preload}
          onFocus={CustomRangeForm.preload}
          className={rangeButtonClass(range === "custom")}
        >
          Custom
        </button>
      </div>
    </div>
  );
}

/** A filter over the values seen in the data; the empty choice ("All …") clears it. */
function FilterSelect({ id, label, all, value, values, onChange }: { id: string; label: string; all: string; value: string | undefined; values: string[]; onChange: (value: string | null) => void }) {
  return (
    <Field label={label} htmlFor={id} className="w-48">
      <Select id={id} value={value ?? ""} onChange={(e) => onChange(e.target.value || null)}>
        <option value="">{all}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </Select>
    </Field>
  );
}

/** The charts of usage against reserved capacity; `series` is null while the range cannot be asked for. */
function UsageSection({ windowText, series }: { windowText: string | null; series: UseQueryResult<GpuTrackingResponse> | null }) {
  return (
    <section aria-label="GPU usage over time" className="space-y-3">
      <div>
        <h2 className="text-lg font-semibold">Usage against reserved capacity</h2>
        <p className="text-sm text-slate-600 dark:text-slate-300">{windowText ?? "Choose a valid range."}</p>
      </div>
      {series ? (
        <QueryState
          state={series}
          what="GPU tracking data"
          lines={6}
          frame={(node) => <Card>{node}</Card>}
          isEmpty={(data) => data.data.length === 0}
          empty={<EmptyState title="No GPU tracking data in this range">Choose a longer range, or other filters.</EmptyState>}
        >
          {(data) => (
            <WhenVisible placeholder={<Skeleton className="h-72" />}>
              <Suspense fallback={<Skeleton className="h-72" />}>
                <GpuCharts data={data.data} />
              </Suspense>
            </WhenVisible>
          )}
        </QueryState>
      ) : null}
    </section>
  );
}

function LatestSnapshotCard({ orgId, latest }: { orgId: string; latest: UseQueryResult<LatestGpuTracking> }) {
  return (
    <Card aria-label="Latest snapshot">
      <CardHeader title="Latest snapshot" description="The newest sample per product line and region, and the effective reservations behind it" />
      <QueryState state={latest} what="the latest snapshot" isEmpty={(data) => data.data.length === 0} empty={<EmptyState title="No GPU tracking samples yet" />}>
        {(data) => <LatestSnapshot orgId={orgId} data={data} />}
      </QueryState>
    </Card>
  );
}

/**
 * GPU usage against reserved capacity. Gated by the reservations feature: the
 * entity's evaluated flags decide first, a 403 from the gateway says the same.
 */
export function GpuTracking({ orgId }: { orgId: string }) {
  const entities = useQuery(orgQueries.entities());
  return (
    <QueryState state={entities} what="your organizations" label="GPU tracking" lines={6} frame={(node) => <Card>{node}</Card>}>
      {(data) => {
        const entity = data.items.find((o) => o.id === orgId);
        if (orgAccess(entity).features.reservations !== true) return <FeatureMissing orgId={orgId} orgName={entity?.name} />;
        return <GpuTrackingView orgId={orgId} orgName={entity?.name} />;
      }}
    </QueryState>
  );
}
