import type { Metadata } from "next";
import { cookies } from "next/headers";
import { Providers } from "@/components/providers";
import { parseTheme, THEME_COOKIE, themeClass } from "@/lib/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Stratus", template: "%s · Stratus" },
  description: "Console for the organizations of the Stratus cloud platform",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The theme chosen is rendered by the server, so no script runs before the first paint (lib/theme.ts).
  // Reading the request's cookies also keeps every page dynamic, as the per-request CSP nonce requires
  // (proxy.ts; Next.js reads it from the request's policy header for its own scripts).
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" className={themeClass(theme)} suppressHydrationWarning>
      <body className="min-h-screen bg-white text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <Providers theme={theme}>{children}</Providers>
      </body>
    </html>
  );
}
