"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { THEME_COOKIE, THEME_COOKIE_MAX_AGE_S, themeClass, type Theme } from "@/lib/theme";

interface ThemeState {
  theme: Theme;
  setTheme: (theme: Theme) => void;
}

const ThemeContext = createContext<ThemeState | null>(null);

/**
 * The theme chosen, as the server rendered it (from the cookie, app/layout.tsx). Choosing one
 * writes the cookie for the next page load and switches the class on <html> at once, with
 * transitions held for that one change (`theme-switching`, app/globals.css), so every colour
 * changes together rather than each fading on its own.
 */
export function ThemeProvider({ initial, children }: { initial: Theme; children: ReactNode }) {
  const [theme, setThemeState] = useState(initial);
  const setTheme = useCallback((next: Theme) => {
    const root = document.documentElement;
    root.classList.add("theme-switching");
    root.classList.remove("light", "dark");
    const cls = themeClass(next);
    if (cls) root.classList.add(cls);
    const secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=${THEME_COOKIE_MAX_AGE_S}; samesite=lax${secure}`;
    // Style the page in the new theme while transitions are held, then release them.
    void window.getComputedStyle(root).color;
    window.setTimeout(() => root.classList.remove("theme-switching"), 1);
    setThemeState(next);
  }, []);
  const value = useMemo(() => ({ theme, setTheme }), [theme, setTheme]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeState {
  const value = useContext(ThemeContext);
  if (!value) throw new Error("useTheme outside ThemeProvider");
  return value;
}
