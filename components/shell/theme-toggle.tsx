"use client";

import { useTheme } from "next-themes";
import { useSyncExternalStore, type ReactNode } from "react";
import { Button } from "@/components/ui/button";

const ORDER = ["light", "dark", "system"] as const;
const subscribe = () => () => {};

/** `icons` (one per setting) arrive rendered by the server. */
export function ThemeToggle({ icons }: { icons: Record<(typeof ORDER)[number], ReactNode> }) {
  const { theme, setTheme } = useTheme();
  // The theme is known only in the browser; render a stable placeholder on the server.
  const mounted = useSyncExternalStore(subscribe, () => true, () => false);
  const current = mounted ? ((theme as (typeof ORDER)[number]) ?? "system") : "system";
  const next = ORDER[(ORDER.indexOf(current) + 1) % ORDER.length] ?? "system";
  return (
    <Button variant="ghost" size="icon" aria-label={`Theme: ${current}. Switch to ${next}`} title={`Theme: ${current}`} onClick={() => setTheme(next)}>
      {icons[current]}
    </Button>
  );
}
