/**
 * Chart colours that read on white and on slate-950 alike, and CSS variables for
 * text, grid and tooltip that the dark class switches: recharts draws with them.
 */
export const SERIES_COLORS = ["#2f6fed", "#f59e0b", "#10b981", "#e11d48", "#8b5cf6", "#06b6d4", "#db2777", "#65a30d", "#ea580c", "#64748b"];

export function seriesColor(i: number): string {
  return SERIES_COLORS[i % SERIES_COLORS.length] ?? "#64748b";
}

export const CHART_VARS =
  "[--chart-text:#1e293b] [--chart-muted:#64748b] [--chart-grid:#e2e8f0] [--chart-tooltip-bg:#ffffff] [--chart-tooltip-border:#cbd5e1] " +
  "dark:[--chart-text:#e2e8f0] dark:[--chart-muted:#94a3b8] dark:[--chart-grid:#1e293b] dark:[--chart-tooltip-bg:#0f172a] dark:[--chart-tooltip-border:#334155]";
