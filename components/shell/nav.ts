import { Activity, Boxes, CalendarClock, ChartColumn, Container, FolderKanban, Gauge, KeyRound, LayoutDashboard, Receipt, ScrollText, Settings, ShieldCheck, Users, UsersRound, type LucideIcon } from "lucide-react";

export interface NavItem {
  label: string;
  /** Path below /orgs/[orgId]; "" is the overview. Absolute when it starts with "/". */
  href: string;
  icon: LucideIcon;
  /** Shown only when this feature flag is true for the caller. */
  flag?: string;
  /** Shown only when the caller holds this permission in the organization (owners hold every one). */
  permission?: string;
}

export interface NavSection {
  title?: string;
  items: NavItem[];
}

/** The console's areas: an area is listed once its page exists. */
export const NAV: NavSection[] = [
  {
    items: [
      { label: "Overview", href: "", icon: LayoutDashboard },
      { label: "Projects", href: "projects", icon: FolderKanban },
    ],
  },
  {
    title: "Access",
    items: [
      { label: "People", href: "people", icon: Users },
      { label: "IAM", href: "iam", icon: UsersRound },
      { label: "Security", href: "security", icon: ShieldCheck },
      { label: "Object storage keys", href: "storage", icon: KeyRound },
    ],
  },
  {
    title: "Billing & usage",
    items: [
      { label: "Billing", href: "billing", icon: Receipt, permission: "billing.read" },
      { label: "Usage", href: "usage", icon: ChartColumn, permission: "billing.read" },
      { label: "Quotas", href: "quotas", icon: Gauge, permission: "billing.read" },
    ],
  },
  {
    title: "Activity",
    items: [{ label: "Audit logs", href: "audit-logs", icon: ScrollText, permission: "audit.read" }],
  },
  {
    title: "Capacity",
    items: [
      { label: "Reservations", href: "reservations", icon: CalendarClock },
      { label: "GPU tracking", href: "reservations/gpu-tracking", icon: Activity, flag: "reservations" },
      { label: "Catalog", href: "/catalog", icon: Boxes },
      { label: "Registry tokens", href: "/catalog/registry", icon: Container },
    ],
  },
  {
    title: "Organization",
    items: [{ label: "Settings", href: "settings", icon: Settings }],
  },
];

/** Hides the flagged items the caller does not have, and the areas they lack the permission to open. */
export function visibleNav(flags: Record<string, unknown>, permissions: readonly string[] = []): NavSection[] {
  return NAV.map((section) => ({
    ...section,
    items: section.items.filter((item) => (!item.flag || flags[item.flag] === true) && (!item.permission || permissions.includes(item.permission))),
  })).filter((section) => section.items.length > 0);
}
