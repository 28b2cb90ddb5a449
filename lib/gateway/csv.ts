import { stringify } from "csv-stringify/sync";
import type { Context } from "hono";
import type { AppEnv } from "./context";

/**
 * A CSV answer streamed batch by batch: each batch is read from the store only
 * when the client has taken the one before, so the whole export never sits in
 * memory. The first batch is read before answering, so a failing store is still
 * a 500; a failure later can only cut the stream short and is logged.
 */
export async function csvResponse<T>(
  c: Context<AppEnv>,
  input: { fileName: string; columns: readonly string[]; batches: AsyncGenerator<T[]>; toRow: (item: T) => Array<string | number> },
): Promise<Response> {
  const { batches, toRow } = input;
  async function* text(): AsyncGenerator<string> {
    for await (const batch of batches) yield stringify(batch.map(toRow));
  }
  return csvTextResponse(c, { fileName: input.fileName, columns: input.columns, chunks: text() });
}

/** The same, for CSV text the store already wrote (lines ending in a newline, one chunk per batch). */
export async function csvTextResponse(
  c: Context<AppEnv>,
  input: { fileName: string; columns: readonly string[]; chunks: AsyncGenerator<string> },
): Promise<Response> {
  const encoder = new TextEncoder();
  const { chunks } = input;
  const first = await chunks.next();
  let pending: Uint8Array | null = encoder.encode(stringify([[...input.columns]]) + (first.done ? "" : first.value));
  let done = first.done === true;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(pending);
        pending = null;
        if (done) controller.close();
        return;
      }
      try {
        const next = await chunks.next();
        if (next.done) {
          done = true;
          controller.close();
        } else {
          controller.enqueue(encoder.encode(next.value));
        }
      } catch (error) {
        c.get("deps").logger.error("CSV export cut short", { request_id: c.get("requestId"), error: String(error) });
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return c.body(stream, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${input.fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
  });
}
