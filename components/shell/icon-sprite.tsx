import "server-only";
import { createHash } from "node:crypto";
import { Building2, ChevronRight, ChevronsUpDown, Cloud, Menu, Monitor, Moon, Sun, UserRound, X } from "lucide-react";
import type { LucideIcon, LucideIconData, LucideIconNode } from "lucide-react";
import type { ReactElement } from "react";
import { cn } from "@/lib/utils";
import { NAV } from "./nav";

/**
 * The shell's icons as one SVG sprite, a file of its own (`/icons.svg`, app/icons.svg/route.ts):
 * each icon's shapes once, in a `<symbol>`, and every place that shows one a two-element
 * `<svg><use href="/icons.svg?v=…#icon-…"></svg>`.
 *
 * lucide-react's icons are client components (its `Icon` is "use client", for its context
 * provider), so an icon rendered by a server component still reaches the browser as a client
 * component with its shapes as props in the page's data, is hydrated there, and the side
 * navigation's are in the HTML twice (the desktop sidebar and the phone drawer). Drawn from the
 * sprite they are plain markup with nothing to hydrate, and their shapes are fetched once and
 * cached, not sent with every page. Budget row: "console pages" (Lighthouse).
 */

/** The frame's own icons (the brand, the drawer's buttons, breadcrumbs, switcher, account, theme). */
export const FRAME_ICONS = { Building2, ChevronRight, ChevronsUpDown, Cloud, Menu, Monitor, Moon, Sun, UserRound, X } satisfies Record<string, LucideIcon>;

/** Every icon the shell draws: the frame's and every area's (each page lists only the caller's areas). */
const SHELL_ICONS: readonly LucideIcon[] = [...Object.values(FRAME_ICONS), ...NAV.flatMap((section) => section.items.map((item) => item.icon))];

/**
 * An icon's shapes, as lucide-react's icon component hands them to its `Icon`. The library has no
 * public export of the data itself; `icon-sprite.test.ts` fails if this way of reading it stops working.
 */
export function iconData(icon: LucideIcon): LucideIconData & { name: string } {
  const render = (icon as unknown as { render?: (props: object, ref: null) => ReactElement<{ icon?: LucideIconData }> }).render;
  const data = render?.({}, null).props.icon;
  if (!data?.name || !Array.isArray(data.node) || data.node.length === 0) {
    throw new Error(`no shapes found for the icon ${icon.displayName ?? "(unnamed)"}: lucide-react changed how an icon holds them`);
  }
  return data as LucideIconData & { name: string };
}

/** The id of an icon's symbol in a sprite, e.g. "icon-users". */
const symbolId = (icon: LucideIcon) => `icon-${iconData(icon).name}`;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", '"': "&quot;" };
const escapeAttribute = (value: unknown) => String(value).replace(/[&<"]/g, (c) => ESCAPES[c]!);

/** Shapes as SVG markup; lucide's `key` (its identity for React) is not an attribute. */
function shapes(nodes: readonly LucideIconNode[]): string {
  return nodes
    .map(([tag, attributes, children]) => {
      const attrs = Object.entries(attributes)
        .filter(([name, value]) => name !== "key" && value !== undefined && value !== null)
        .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
        .join("");
      return `<${tag}${attrs}>${children ? shapes(children) : ""}</${tag}>`;
    })
    .join("");
}

/** A sprite of the given icons: one symbol each, with lucide's stroke (fill none, 2 wide, round caps and joins). */
export function spriteMarkup(icons: readonly LucideIcon[]): string {
  const symbols = new Map<string, string>();
  for (const icon of icons) {
    const id = symbolId(icon);
    if (symbols.has(id)) continue;
    const data = iconData(icon);
    // As lucide sizes its own: the drawing's size, 24 × 24 unless it says otherwise.
    const width = data.size ?? data.width ?? 24;
    const height = data.size ?? data.height ?? 24;
    symbols.set(
      id,
      `<symbol id="${id}" viewBox="0 0 ${width} ${height}" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${shapes(data.node)}</symbol>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg">${[...symbols.values()].join("")}</svg>`;
}

/** The shell's sprite, made once per process. */
export const SHELL_SPRITE = spriteMarkup(SHELL_ICONS);
/** Each of the shell's icons' symbol id, read once rather than at every render. */
const SHELL_SYMBOLS = new Map(SHELL_ICONS.map((icon) => [icon, symbolId(icon)]));

/** Where the sprite is served; its version (a digest of its content) changes with it, so it may be cached for good. */
const SPRITE_URL = `/icons.svg?v=${createHash("sha256").update(SHELL_SPRITE).digest("hex").slice(0, 12)}`;

/**
 * One of the sprite's icons, drawn as lucide draws its own (24 × 24 unless a class sizes it; the
 * symbol holds the stroke), so it takes the same classes.
 */
export function SpriteIcon({ icon, className }: { icon: LucideIcon; className?: string }) {
  const id = SHELL_SYMBOLS.get(icon);
  if (!id) throw new Error(`the icon ${symbolId(icon)} is not in the shell's sprite: add it to FRAME_ICONS or to an area in NAV`);
  return (
    <svg aria-hidden="true" width="24" height="24" className={cn("lucide", className)}>
      <use href={`${SPRITE_URL}#${id}`} />
    </svg>
  );
}
