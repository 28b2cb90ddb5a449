"use client";

import type * as React from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { QueryState, type QueryLike } from "@/components/ui/query-state";
import { monthEndForecastCents } from "@/components/spend/date-range";
import { formatMonth } from "@/lib/utc-date";
import type { CostSummary } from "./aggregate";
import { formatCents } from "./money";

/** Spend in the period, month to date and the month's forecast. */
export function SpendSummary({ period, month, now, rangeValid }: { period: QueryLike<CostSummary>; month: QueryLike<CostSummary>; now: Date; rangeValid: boolean }) {
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
      <SummaryCard title="Spend in period" state={period} disabled={!rangeValid}>
        {(data) => <Big>{formatCents(data.totalCents)}</Big>}
      </SummaryCard>
      <SummaryCard title="Month to date" state={month}>
        {(data) => <Big>{formatCents(data.totalCents)}</Big>}
      </SummaryCard>
      <SummaryCard title={`Forecast for ${formatMonth(now)}`} state={month}>
        {(data) => {
          const f = monthEndForecastCents(data.totalCents, now);
          return (
            <>
              <Big>{formatCents(f.forecastCents)}</Big>
              <p className="text-xs text-slate-500 dark:text-slate-400">
                Month-to-date run rate over {f.daysElapsed} of {f.daysInMonth} days
              </p>
            </>
          );
        }}
      </SummaryCard>
    </div>
  );
}

function Big({ children }: { children: React.ReactNode }) {
  return <p className="text-2xl font-semibold tabular-nums">{children}</p>;
}

function SummaryCard<T>({ title, state, disabled, children }: { title: string; state: QueryLike<T>; disabled?: boolean; children: (data: T) => React.ReactNode }) {
  return (
    <Card>
      <CardHeader title={title} />
      {disabled ? (
        <CardBody>
          <p className="text-sm text-slate-500 dark:text-slate-400">Choose a valid range.</p>
        </CardBody>
      ) : (
        <QueryState state={state} what={title.toLowerCase()} label={title} lines={2}>
          {(data) => <CardBody>{children(data)}</CardBody>}
        </QueryState>
      )}
    </Card>
  );
}
