import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

/**
 * Hono's default router with the last answers kept by method and path. The API's paths
 * put parameters beside static segments (/organizations/projects, /organizations/{id}),
 * which Hono's one-regexp router refuses, so matching falls back to the trie: a walk per
 * request that a client calling the same few paths repeats with the same result. Matches
 * are read-only to Hono (parameters are decoded into new objects), so a kept one is safe
 * to hand out again. Bounded: the oldest entry goes first.
 */
export class MemoRouter<T> implements Router<T> {
  readonly name: string;
  readonly #inner: Router<T>;
  readonly #kept = new Map<string, Result<T>>();
  readonly #max: number;

  constructor(inner: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] }), max = 2048) {
    this.#inner = inner;
    this.#max = max;
    this.name = `MemoRouter(${inner.name})`;
  }

  add(method: string, path: string, handler: T): void {
    this.#kept.clear();
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    let result = this.#kept.get(key);
    if (result === undefined) {
      result = this.#inner.match(method, path);
      if (this.#kept.size >= this.#max) this.#kept.delete(this.#kept.keys().next().value!);
      this.#kept.set(key, result);
    }
    return result;
  }

  /** How many matches are kept (for tests). */
  get size(): number {
    return this.#kept.size;
  }
}
