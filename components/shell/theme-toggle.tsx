"use client";

import type { ReactNode } from "react";
import { useTheme } from "@/components/theme-provider";
import { Button } from "@/components/ui/button";
import { THEMES, type Theme } from "@/lib/theme";

/** `icons` (one per setting) arrive rendered by the server. */
export function ThemeToggle({ icons }: { icons: Record<Theme, ReactNode> }) {
  const { theme: current, setTheme } = useTheme();
  const next = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length] ?? "system";
  return (
    <Button variant="ghost" size="icon" aria-label={`Theme: ${current}. Switch to ${next}`} title={`Theme: ${current}`} onClick={() => setTheme(next)}>
      {icons[current]}
    </Button>
  );
}
