export interface SparklinePaths {
  /** The line through the values, left to right. */
  line: string;
  /** The same line closed down to the baseline, for the fill. */
  area: string;
  /** One column per value (x and width), centred on its point: where its tooltip lives. */
  columns: Array<{ x: number; width: number }>;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * SVG paths of a sparkline in a width × height box: the largest value touches the
 * top, zero the bottom (negative values are drawn at zero: a credit is no spend).
 * One value is drawn as a flat line across the box.
 */
export function sparklinePaths(values: number[], width: number, height: number): SparklinePaths {
  if (values.length === 0) return { line: "", area: "", columns: [] };
  const top = Math.max(...values, 0);
  const y = (v: number) => round(top > 0 ? height - (Math.max(v, 0) / top) * height : height);
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values.length > 1 ? values.map((v, i) => [round(i * step), y(v)] as const) : [[0, y(values[0]!)] as const, [width, y(values[0]!)] as const];
  const line = points.map(([px, py], i) => `${i === 0 ? "M" : "L"}${px} ${py}`).join(" ");
  const area = `${line} L${width} ${height} L0 ${height} Z`;
  const columnWidth = values.length > 1 ? step : width;
  const columns = values.map((_, i) => {
    const left = Math.max(0, i * step - columnWidth / 2);
    const right = Math.min(width, i * step + columnWidth / 2);
    return { x: round(values.length > 1 ? left : 0), width: round(values.length > 1 ? right - left : width) };
  });
  return { line, area, columns };
}
