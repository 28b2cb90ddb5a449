import type { Metadata } from "next";
import { headers } from "next/headers";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Stratus", template: "%s · Stratus" },
  description: "Console for the organizations of the Stratus cloud platform",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The per-request CSP nonce (proxy.ts); reading it also keeps every page dynamic, as nonces require.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen bg-white text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
