/** What a server action that never answered (the network, or the console redeployed under the page) says. */
export const UNREACHED = "The console could not be reached; try again";

/**
 * A server action's answer, or a failure in words when the call itself failed: the screens show it
 * and let the person try again, where a rejected promise left their buttons busy and said nothing.
 */
export async function reached<T>(action: () => Promise<T>): Promise<T | { ok: false; error: string }> {
  try {
    return await action();
  } catch {
    return { ok: false, error: UNREACHED };
  }
}
