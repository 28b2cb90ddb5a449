"use client";

import type { ReactNode } from "react";
import { MultiSelect } from "@/components/ui/multi-select";

export interface SpendFilterValues {
  projects: string[];
  resource_types: string[];
  regions: string[];
}

interface FilterSelectsProps {
  value: SpendFilterValues;
  onChange: (change: Partial<SpendFilterValues>) => void;
  projects: Array<{ value: string; label: string }>;
  resourceTypes: Array<{ value: string }>;
  regions: Array<{ value: string }>;
  /** What billing and usage call the resource types ("Product lines", "Resource types"). */
  resourceTypesLabel: string;
  /** Beside the filters: the export button. */
  action: ReactNode;
}

/** The project, resource type and region filters of billing and usage, and the export beside them. */
export function FilterSelects({ value, onChange, projects, resourceTypes, regions, resourceTypesLabel, action }: FilterSelectsProps) {
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
      <MultiSelect label="Projects" emptyLabel="All projects" options={projects} value={value.projects} onChange={(v) => onChange({ projects: v })} />
      <MultiSelect
        label={resourceTypesLabel}
        emptyLabel={`All ${resourceTypesLabel.toLowerCase()}`}
        options={resourceTypes}
        value={value.resource_types}
        onChange={(v) => onChange({ resource_types: v })}
      />
      <MultiSelect label="Regions" emptyLabel="All regions" options={regions} value={value.regions} onChange={(v) => onChange({ regions: v })} />
      <div className="flex items-end">{action}</div>
    </div>
  );
}
