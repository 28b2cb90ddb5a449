"use client";

import { Suspense } from "react";
import { lazyComponent } from "@/components/common/lazy";

// The form (react-hook-form, the contract's zod schema) is fetched when a rename starts, or when the
// pointer reaches a Rename button: most visits rename nothing.
const RenameProjectForm = lazyComponent(() => import("./rename-project-form").then((m) => m.RenameProjectForm));

export const preloadRenameForm = RenameProjectForm.preload;

/** Renames a project in place (rename-project-form.tsx); the name stays on screen while the form loads. */
export function RenameProject(props: { project: { id: string; name: string }; onDone: () => void }) {
  return (
    <Suspense fallback={<span className="font-medium">{props.project.name}</span>}>
      <RenameProjectForm {...props} />
    </Suspense>
  );
}
