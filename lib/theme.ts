/**
 * The console's colour theme: light, dark, or the system's (the default). The choice lives
 * in a cookie, so the server renders the page in it (a class on <html>) and no script has to
 * run before the first paint; "system" is CSS alone (prefers-color-scheme, app/globals.css).
 *
 * Our own code in place of next-themes, for the Lighthouse "console pages" budget (`npm run bench`):
 * next-themes' inline script sits at the top of <body>, and a script after a pending stylesheet holds
 * the page's parsing until the stylesheet arrives; by then the framework's scripts had arrived too and
 * ran before the content painted, which put their whole start-up into the pages' Largest Contentful Paint.
 */
export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_COOKIE = "theme";
/** A year: the choice is a preference, not a session. */
export const THEME_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/** The theme a cookie's value names; anything else (absent, tampered) is the system's. */
export function parseTheme(value: string | undefined | null): Theme {
  return THEMES.find((t) => t === value) ?? "system";
}

/** The class <html> carries for a theme: none for the system's. */
export function themeClass(theme: Theme): "light" | "dark" | undefined {
  return theme === "system" ? undefined : theme;
}
