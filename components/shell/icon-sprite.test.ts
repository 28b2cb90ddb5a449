import { Building2, Cloud, Trash2, Users, type LucideIcon } from "lucide-react";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { FRAME_ICONS, iconData, SHELL_SPRITE, SpriteIcon, spriteMarkup } from "./icon-sprite";
import { NAV } from "./nav";

const navIcons = NAV.flatMap((section) => section.items.map((item) => item.icon));

/** Lucide's own stroke attributes, as on its <svg>. */
const STROKE = 'fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"';

/** What lucide-react itself draws inside its <svg> for an icon. */
function lucideShapes(icon: LucideIcon): string {
  const markup = renderToStaticMarkup(createElement(icon));
  return markup.slice(markup.indexOf(">") + 1, markup.lastIndexOf("</svg>"));
}

function symbolOf(sprite: string, icon: LucideIcon): string | undefined {
  return new RegExp(`<symbol id="icon-${iconData(icon).name}" viewBox="0 0 24 24" ${STROKE}>([\\s\\S]*?)</symbol>`).exec(sprite)?.[1];
}

describe("the shell's icon sprite", () => {
  it("reads every icon's shapes, each icon under a name of its own", () => {
    const byName = new Map<string, LucideIcon>();
    for (const icon of [...navIcons, ...Object.values(FRAME_ICONS)]) {
      const name = iconData(icon).name;
      // Two icons under one name would draw one of them in the other's place.
      expect(byName.get(name) ?? icon, name).toBe(icon);
      byName.set(name, icon);
    }
    expect(byName.get("layout-dashboard")).toBe(navIcons[0]);
  });

  it("draws each of the shell's icons exactly as lucide-react does, once", () => {
    expect(SHELL_SPRITE.startsWith('<svg xmlns="http://www.w3.org/2000/svg"><symbol ')).toBe(true);
    for (const icon of new Set([...navIcons, ...Object.values(FRAME_ICONS)])) {
      const name = iconData(icon).name;
      expect(symbolOf(SHELL_SPRITE, icon), name).toBe(lucideShapes(icon));
      expect(SHELL_SPRITE.split(`id="icon-${name}"`).length - 1, name).toBe(1);
    }
    // lucide-react puts the same stroke on its own <svg>.
    expect(renderToStaticMarkup(createElement(Building2))).toContain(STROKE);
  });

  it("keeps one symbol for an icon given twice, and only the icons given", () => {
    const sprite = spriteMarkup([Cloud, Users, Cloud]);
    expect(sprite.match(/<symbol /g)).toHaveLength(2);
    expect(symbolOf(sprite, Users)).toBe(lucideShapes(Users));
  });

  it("shows an icon as a reference to its symbol in the versioned sprite, with the classes given", () => {
    const markup = renderToStaticMarkup(createElement(SpriteIcon, { icon: Building2, className: "size-4 shrink-0" }));
    expect(markup).toMatch(
      new RegExp(`^<svg aria-hidden="true" width="24" height="24" class="lucide size-4 shrink-0"><use href="/icons\\.svg\\?v=[0-9a-f]{12}#icon-${iconData(Building2).name}"></use></svg>$`),
    );
  });

  it("refuses an icon the sprite does not hold, and one whose shapes it cannot read", () => {
    expect(navIcons).not.toContain(Trash2);
    expect(() => renderToStaticMarkup(createElement(SpriteIcon, { icon: Trash2 }))).toThrow(/the icon icon-trash[a-z0-9-]* is not in the shell's sprite/);
    const notAnIcon = { displayName: "Nothing", render: () => createElement("svg") } as unknown as LucideIcon;
    expect(() => iconData(notAnIcon)).toThrow(/no shapes found for the icon Nothing/);
  });
});
