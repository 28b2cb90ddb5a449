"use client";

import { Check, Copy } from "lucide-react";
import { useState, useSyncExternalStore } from "react";
import { Button } from "@/components/ui/button";
import { SCIM_BASE_PATH } from "@/lib/contract/constants";
import { scimBaseUrl } from "./scim-token-file";

const unchanging = () => () => {};
const basePath = () => SCIM_BASE_PATH;

/** The SCIM base URL, copyable, as identity providers ask for it beside the token. */
export function ScimBaseUrl() {
  const [copied, setCopied] = useState(false);
  // The server knows no origin the browser will use: it renders the path, and the browser, once
  // hydrated, the whole URL (reading window.location while hydrating would not match the server's text).
  const url = useSyncExternalStore(unchanging, scimBaseUrl, basePath);
  return (
    <div className="flex items-center gap-2">
      <code data-testid="scim-base-url" className="min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1.5 font-mono text-xs dark:bg-slate-800">
        {url}
      </code>
      <Button
        variant="secondary"
        size="sm"
        aria-label="Copy SCIM base URL"
        onClick={() =>
          void navigator.clipboard.writeText(url).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? <Check /> : <Copy />}
      </Button>
    </div>
  );
}
