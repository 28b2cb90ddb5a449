"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { catalogQueries } from "@/lib/query/catalog";
import { RegistryTokenForm } from "./registry-token-form";

function ListCard({ title, description, what, state }: { title: string; description: string; what: string; state: UseQueryResult<{ items: string[] }> }) {
  return (
    <Card aria-label={title}>
      <CardHeader title={title} description={description} />
      <QueryState state={state} what={what} isEmpty={(data) => data.items.length === 0} empty={<EmptyState title={`No ${what}`} />}>
        {(data) => (
          <CardBody>
            <ul className="flex flex-wrap gap-2">
              {data.items.map((item) => (
                <li key={item} className="rounded-md border border-slate-200 px-2.5 py-1 font-mono text-xs dark:border-slate-700">
                  {item}
                </li>
              ))}
            </ul>
          </CardBody>
        )}
      </QueryState>
    </Card>
  );
}

/** Registry tokens (created here, shown once) and where the container registry can host repositories. */
export function RegistryView({ registryHost, username }: { registryHost: string; username: string }) {
  const locations = useQuery(catalogQueries.registryLocations());
  const providers = useQuery(catalogQueries.registryProviders());
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card aria-label="Create a registry token" className="lg:row-span-2">
        <CardHeader title="Create a registry token" description="A limited-scope token to push and pull images" />
        <CardBody className="space-y-4">
          <p className="text-sm text-slate-600 dark:text-slate-300">
            The token is shown <strong>once</strong>, when it is created: the registry keeps only a hash, so tokens cannot be listed or shown again.
            {" "}It belongs to the organization you joined first.
          </p>
          <RegistryTokenForm registryHost={registryHost} username={username} />
        </CardBody>
      </Card>
      <ListCard title="Supported locations" description="Where container registry repositories can be hosted" what="registry locations" state={locations} />
      <ListCard title="Pull-through cache providers" description="Upstream registries a repository can cache images from" what="registry providers" state={providers} />
    </div>
  );
}
