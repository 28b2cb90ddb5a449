"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import type * as React from "react";
import { ThemeProvider } from "@/components/theme-provider";
import { Toaster } from "@/components/ui/toast";
import type { Theme } from "@/lib/theme";
import { getQueryClient } from "@/lib/query/query-client";

export function Providers({ children, theme }: { children: React.ReactNode; theme: Theme }) {
  const queryClient = getQueryClient();
  return (
    <ThemeProvider initial={theme}>
      <QueryClientProvider client={queryClient}>
        <NuqsAdapter>{children}</NuqsAdapter>
        <Toaster />
      </QueryClientProvider>
    </ThemeProvider>
  );
}
