"use client";

import { useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The phone's navigation drawer: a native modal <dialog> (showModal), so the page behind is inert,
 * focus moves into the drawer as it opens and back to the control that opened it as it closes, and
 * Escape closes it. Tab and Shift+Tab go round the drawer's own controls.
 *
 * Its content is in the page only while it is open: a second copy of the navigation in every
 * page's HTML was a sixth of it (8.8 KB of the people page's 65).
 */
export function NavDrawer({ open, onClose, label, children }: { open: boolean; onClose: () => void; label: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== "Tab" || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
    const first = items[0];
    const last = items.at(-1);
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      aria-label={label}
      onClose={onClose}
      onKeyDown={onKeyDown}
      // A click on the backdrop lands on the dialog element itself, outside its panel.
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
      className="m-0 h-dvh max-h-none w-64 max-w-[85vw] overflow-y-auto bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/40 md:hidden dark:bg-slate-900 dark:text-slate-100"
    >
      {open ? children : null}
    </dialog>
  );
}
