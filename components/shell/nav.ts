import { LayoutDashboard, type LucideIcon } from "lucide-react";

export interface NavItem {
  label: string;
  /** Path below /orgs/[orgId]; "" is the overview. Absolute when it starts with "/". */
  href: string;
  icon: LucideIcon;
  /** Shown only when this feature flag is true for the caller. */
  flag?: string;
}

export interface NavSection {
  title?: string;
  items: NavItem[];
}

/** The console's areas: an area is listed once its page exists. */
export const NAV: NavSection[] = [{ items: [{ label: "Overview", href: "", icon: LayoutDashboard }] }];

/** Hides the flagged items the caller does not have. */
export function visibleNav(flags: Record<string, unknown>): NavSection[] {
  return NAV.map((section) => ({
    ...section,
    items: section.items.filter((item) => !item.flag || flags[item.flag] === true),
  })).filter((section) => section.items.length > 0);
}
