import { inArray, sql, type Column, type SQL } from "drizzle-orm";

/**
 * Statements over lists as long as a SCIM group's members (tens of thousands). PostgreSQL's wire protocol counts a
 * statement's parameters in 16 bits: at most 65,535, and `inArray` binds one per value, an insert one per column of
 * each row. Past that the statement is refused (08P01) and nothing of the change can be written.
 */
export const MAX_PARAMETERS = 65_535;

/** Up to this many values, `inArray`'s own list (the plans every short list has had); beyond it, one parameter. */
const SHORT_LIST = 1_000;

/** `column in (values)`, for a list of any length: a long one goes as one JSON parameter the statement unpacks. */
export function inList(column: Column, values: string[]): SQL {
  if (values.length <= SHORT_LIST) return inArray(column, values);
  return sql`${column} in (select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/** Rows to insert, in parts each of whose statements binds at most MAX_PARAMETERS (`columns` per row). */
export function insertParts<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
  const parts: T[][] = [];
  for (let i = 0; i < rows.length; i += size) parts.push(rows.slice(i, i + size));
  return parts;
}
