"use client";

import { useState } from "react";
import { PageHeader } from "@/components/ui/page-header";
import type { RoleBinding } from "@/lib/contract/iam";
import { BindingEditor, type EditorState } from "./binding-editor";
import { BindingsPanel } from "./bindings-panel";
import { RolesTable } from "./roles-table";
import { bindingLock, removalKey } from "./staged";
import { useIamContext } from "./use-iam-context";

export function IamView({ orgId, selfId }: { orgId: string; selfId: string }) {
  const ctx = useIamContext(orgId);
  const [editor, setEditor] = useState<EditorState>({ user: null, changes: [], failure: null });
  const writeReason = ctx.access.can("iam.write")
    ? null
    : "You need the iam.write permission (e.g. the Organization Admin role) to change role bindings; ask an owner of the organization.";

  const otherUserBusy = (userId: string) => editor.user !== null && editor.user !== userId && editor.changes.length > 0;

  const stageRemoval = (b: RoleBinding) => {
    setEditor((s) => {
      const sameUser = s.user === b.customer_id;
      const changes = sameUser ? s.changes : [];
      if (changes.some((c) => c.key === removalKey(b.id))) return s;
      return { user: b.customer_id, failure: null, changes: [...changes, { key: removalKey(b.id), kind: "remove", binding: b }] };
    });
    document.getElementById("binding-editor")?.scrollIntoView({ behavior: "smooth", block: "start" });
  };

  return (
    <div className="space-y-6">
      <PageHeader title="Identity and access" description={`Roles of ${ctx.orgName}, who holds them where, and changes to them applied all at once.`} />
      <BindingEditor ctx={ctx} orgId={orgId} selfId={selfId} writeReason={writeReason} state={editor} setState={setEditor} onStageRemoval={stageRemoval} />
      <BindingsPanel
        ctx={ctx}
        selfId={selfId}
        removalBlocked={(b, relation) =>
          writeReason ??
          ctx.personLock(b.customer_id, relation) ??
          bindingLock(b) ??
          (otherUserBusy(b.customer_id) ? "Apply or discard the staged changes of the other user first." : null)
        }
        isStaged={(b) => editor.user === b.customer_id && editor.changes.some((c) => c.key === removalKey(b.id))}
        onStageRemoval={stageRemoval}
      />
      <RolesTable ctx={ctx} />
    </div>
  );
}
