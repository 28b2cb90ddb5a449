import { SHELL_SPRITE } from "@/components/shell/icon-sprite";

/**
 * The shell's icons, one symbol each (components/shell/icon-sprite.tsx). Pages ask for it with a
 * version that changes with its content, so a browser keeps it for good.
 */
export function GET() {
  return new Response(SHELL_SPRITE, {
    headers: {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "public, max-age=31536000, immutable",
    },
  });
}
