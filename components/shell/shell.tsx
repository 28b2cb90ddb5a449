import type * as React from "react";
import { FRAME_ICONS, SpriteIcon } from "./icon-sprite";
import { NAV, visibleNav, type NavItem } from "./nav";
import type { OrgSummary } from "./org-switcher";
import { ShellFrame, type ShellIcons } from "./shell-frame";
import type { SideNavSection } from "./side-nav";

interface ShellProps {
  orgs: OrgSummary[];
  orgId: string;
  email: string;
  flags: Record<string, unknown>;
  /** The caller's organization-wide permissions: areas they may not open are not listed. */
  permissions: readonly string[];
  children: React.ReactNode;
}

const LABELS = Object.fromEntries(NAV.flatMap((s) => s.items).map((i) => [i.href, i.label]));

const { Building2, ChevronRight, ChevronsUpDown, Cloud, Menu, Monitor, Moon, Sun, UserRound, X } = FRAME_ICONS;

/** The frame's own icons, drawn from the sprite like the navigation's. */
const ICONS: ShellIcons = {
  brand: <SpriteIcon icon={Cloud} className="size-5 text-brand-600" />,
  openNav: <SpriteIcon icon={Menu} />,
  closeNav: <SpriteIcon icon={X} />,
  crumb: <SpriteIcon icon={ChevronRight} className="size-3.5 shrink-0" />,
  org: <SpriteIcon icon={Building2} />,
  orgMenu: <SpriteIcon icon={ChevronsUpDown} className="opacity-60" />,
  account: <SpriteIcon icon={UserRound} />,
  theme: { light: <SpriteIcon icon={Sun} />, dark: <SpriteIcon icon={Moon} />, system: <SpriteIcon icon={Monitor} /> },
};

/**
 * Sidebar by area, top bar with breadcrumbs, organization switcher, theme and account; a drawer on phones.
 * A server component: it resolves the caller's areas and draws their icons (and the frame's) from the
 * shell's sprite (icon-sprite.tsx), so the browser gets the navigation as data and plain markup, with
 * no icon component to hydrate and no icon's shapes in the page.
 */
export function Shell({ orgs, orgId, email, flags, permissions, children }: ShellProps) {
  const base = `/orgs/${orgId}`;
  const hrefOf = (item: NavItem) => (item.href.startsWith("/") ? item.href : item.href ? `${base}/${item.href}` : base);
  const sections: SideNavSection[] = visibleNav(flags, permissions).map((section) => ({
    title: section.title,
    items: section.items.map((item) => ({ href: hrefOf(item), label: item.label, icon: <SpriteIcon icon={item.icon} className="size-4 shrink-0" /> })),
  }));
  return (
    <ShellFrame orgs={orgs} orgId={orgId} email={email} sections={sections} labels={LABELS} icons={ICONS}>
      {children}
    </ShellFrame>
  );
}
