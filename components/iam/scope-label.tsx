import { Badge } from "@/components/ui/badge";
import { PersonName } from "@/components/common/person-name";

/** "org Acme AI Labs" / "project llm-training", the id when the name is not known. */
export function ScopeLabel({ scopeType, scopeObjectId, name }: { scopeType: string; scopeObjectId: string; name: string | null }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <Badge tone={scopeType === "org" ? "info" : "neutral"}>{scopeType}</Badge>{" "}
      {name ? <span>{name}</span> : <span className="font-mono text-xs" title="Not visible to you">{scopeObjectId}</span>}
    </span>
  );
}

/** A person by name and e-mail (linking to them), marked when it is the caller. */
export function UserLabel({ orgId, userId, selfId }: { orgId: string; userId: string; selfId: string }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <PersonName orgId={orgId} userId={userId} />{" "}
      {userId === selfId ? <Badge tone="info">you</Badge> : null}
    </span>
  );
}
