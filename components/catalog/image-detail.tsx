"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import type * as React from "react";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton, WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { catalogQueries } from "@/lib/query/catalog";
import { ApiError } from "@/lib/query/fetcher";

function BackLink() {
  return (
    <IntentLink href="/catalog/images" className={buttonVariants({ variant: "secondary", size: "sm" })}>
      <ArrowLeft aria-hidden /> All images
    </IntentLink>
  );
}

function Item({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 text-sm">{children}</dd>
    </div>
  );
}

export function ImageDetail({ imageId }: { imageId: string }) {
  const state = useQuery(catalogQueries.image(imageId));
  if (state.isPending) {
    return (
      <div className="space-y-6">
        <Skeleton className="h-8 w-64" />
        <Card>
          <WidgetSkeleton label="the image" lines={5} />
        </Card>
      </div>
    );
  }
  if (state.isError) {
    const status = state.error instanceof ApiError ? state.error.status : undefined;
    return (
      <Card>
        {status === 404 || status === 400 ? (
          <EmptyState title="Image not found" action={<BackLink />}>
            No image <code className="font-mono">{imageId}</code> is in the catalog.
          </EmptyState>
        ) : (
          <ErrorState error={state.error} what="the image" onRetry={() => void state.refetch()} />
        )}
      </Card>
    );
  }
  const image = state.data;
  return (
    <div className="space-y-6">
      <PageHeader title={image.name} description={image.description} actions={<BackLink />} />
      <Card>
        <CardHeader title="Details" />
        <CardBody>
          <dl className="grid gap-4 sm:grid-cols-2">
            <Item label="Image ID">
              <code className="break-all font-mono text-xs">{image.id}</code>
            </Item>
            <Item label="Created">
              <time dateTime={image.created_at}>{image.created_at.slice(0, 10)}</time>
            </Item>
            <Item label="Tags">
              <span className="flex flex-wrap gap-1">
                {image.tags.length ? image.tags.map((t) => <Badge key={t}>{t}</Badge>) : "—"}
              </span>
            </Item>
            <Item label="Available in">
              <ul className="flex flex-wrap gap-1" aria-label="Locations of the image">
                {image.locations.map((l) => (
                  <li key={l}>
                    <Badge tone="info">{l}</Badge>
                  </li>
                ))}
              </ul>
            </Item>
          </dl>
        </CardBody>
      </Card>
    </div>
  );
}
