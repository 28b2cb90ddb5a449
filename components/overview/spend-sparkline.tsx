import { sparklinePaths } from "./sparkline-paths";
import { formatUsd } from "@/lib/format";

const WIDTH = 100;
const HEIGHT = 40;

/**
 * A month of daily spend as a plain SVG line: no chart library for one small line
 * (recharts and its store were an eighth of the overview's main-thread work). Each day
 * is a column with its own tooltip (the SVG <title>); the label sums the line up.
 */
export function SpendSparkline({ series }: { series: Array<{ date: string; cost: number }> }) {
  const { line, area, columns } = sparklinePaths(
    series.map((d) => d.cost),
    WIDTH,
    HEIGHT,
  );
  const peak = series.reduce((top, d) => (d.cost > top.cost ? d : top), series[0] ?? { date: "", cost: 0 });
  const label = series.length
    ? `Daily spend over ${series.length} days, highest ${formatUsd(peak.cost)} on ${peak.date}`
    : "No daily spend";
  return (
    <svg
      className="h-24 w-full text-brand-500"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      <path d={area} fill="currentColor" fillOpacity={0.15} />
      <path d={line} fill="none" stroke="currentColor" strokeWidth={2} vectorEffect="non-scaling-stroke" strokeLinejoin="round" />
      {columns.map((c, i) => (
        <rect key={series[i]?.date ?? i} x={c.x} width={c.width} y={0} height={HEIGHT} fill="transparent">
          <title>{`${series[i]?.date}: ${formatUsd(series[i]?.cost ?? 0)}`}</title>
        </rect>
      ))}
    </svg>
  );
}
