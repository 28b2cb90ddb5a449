"use client";

import { lazy, Suspense } from "react";

// The form (react-hook-form, the contract's zod schema) is fetched when a rename starts, or when the
// pointer reaches a Rename button: most visits rename nothing.
const load = () => import("./rename-project-form");
const RenameProjectForm = lazy(() => load().then((m) => ({ default: m.RenameProjectForm })));

export const preloadRenameForm = () => void load().catch(() => undefined);

/** Renames a project in place (rename-project-form.tsx); the name stays on screen while the form loads. */
export function RenameProject(props: { project: { id: string; name: string }; onDone: () => void }) {
  return (
    <Suspense fallback={<span className="font-medium">{props.project.name}</span>}>
      <RenameProjectForm {...props} />
    </Suspense>
  );
}
