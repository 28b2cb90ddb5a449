"use client";

import { Button } from "@/components/ui/button";
import type { RowData } from "@tanstack/react-table";
import type { ColumnDef } from "@/components/ui/data-table";
import { ActionsHeader } from "./actions-header";

/**
 * A table's last column: a Delete button per row, disabled with its reason (in the title) when
 * the caller may not delete that row. `label` names the row for screen readers ("Delete token ci").
 */
export function deleteColumn<T extends RowData>({ label, disabledReason, onDelete }: { label: (row: T) => string; disabledReason: (row: T) => string | undefined; onDelete: (row: T) => void }): ColumnDef<T, unknown> {
  return {
    id: "actions",
    header: () => <ActionsHeader />,
    enableSorting: false,
    cell: ({ row }) => {
      const reason = disabledReason(row.original);
      return (
        <Button variant="ghost-danger" size="sm" disabled={reason !== undefined} title={reason} aria-label={label(row.original)} onClick={() => onDelete(row.original)}>
          Delete
        </Button>
      );
    },
  };
}
