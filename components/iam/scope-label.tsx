import { Badge } from "@/components/ui/badge";

/** "org Acme AI Labs" / "project llm-training", the id when the name is not known. */
export function ScopeLabel({ scopeType, scopeObjectId, name }: { scopeType: string; scopeObjectId: string; name: string | null }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <Badge tone={scopeType === "org" ? "info" : "neutral"}>{scopeType}</Badge>{" "}
      {name ? <span>{name}</span> : <span className="font-mono text-xs" title="Not visible to you">{scopeObjectId}</span>}
    </span>
  );
}

export function UserLabel({ userId, selfId }: { userId: string; selfId: string }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <span className="font-mono text-xs">{userId}</span>{" "}
      {userId === selfId ? <Badge tone="info">you</Badge> : null}
    </span>
  );
}
