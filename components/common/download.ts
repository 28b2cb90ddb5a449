import { FORMULA_START } from "@/lib/csv-formula";

/** Starts a download the browser streams to disk under the server's file name. */
export function downloadFrom(url: string): void {
  const a = Object.assign(document.createElement("a"), { href: url, download: "" });
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** Saves text made in the browser as a file. */
export function saveText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/**
 * CSV text of a header row and data rows; papaparse is fetched on the first export, not with the page.
 * Formula-looking cells are escaped unless told not to: a file opened in a spreadsheet must not run
 * anything, but a secret that starts with "-" must reach the file unchanged. The rule is the one the
 * gateway's exports follow (lib/csv-formula.ts); papaparse's own default misses a multi-line cell.
 */
export async function csvText(fields: readonly string[], rows: string[][], { escapeFormulae = true } = {}): Promise<string> {
  const { default: Papa } = await import("papaparse");
  return `${Papa.unparse({ fields: [...fields], data: rows }, { escapeFormulae: escapeFormulae ? FORMULA_START : false })}\n`;
}
