"use client";

import { Area, AreaChart, ResponsiveContainer, Tooltip, XAxis } from "recharts";

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function SpendSparkline({ series }: { series: Array<{ date: string; cost: number }> }) {
  return (
    <div className="h-24" role="img" aria-label={`Daily spend over ${series.length} days`}>
      <ResponsiveContainer width="100%" height="100%">
        <AreaChart data={series} margin={{ top: 4, right: 0, bottom: 0, left: 0 }}>
          <XAxis dataKey="date" hide />
          <Tooltip
            formatter={(value) => [money.format(Number(value)), "Spend"]}
            labelFormatter={(label) => String(label)}
            contentStyle={{ fontSize: 12, borderRadius: 6 }}
          />
          <Area type="monotone" dataKey="cost" isAnimationActive={false} stroke="var(--color-brand-500)" fill="var(--color-brand-500)" fillOpacity={0.15} strokeWidth={2} />
        </AreaChart>
      </ResponsiveContainer>
    </div>
  );
}
