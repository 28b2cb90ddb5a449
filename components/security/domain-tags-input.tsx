"use client";

import { X } from "lucide-react";
import { useState } from "react";
import { emailDomainSchema } from "@/lib/contract/sso";
import { cn } from "@/lib/utils";

interface DomainTagsInputProps {
  id: string;
  value: string[];
  onChange: (domains: string[]) => void;
  onBlur?: () => void;
  /** Reports why the text being typed cannot become a tag (null once it can). */
  onDraftError: (message: string | null) => void;
  disabled?: boolean;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

/**
 * E-mail domains as tags: Enter, comma, space or leaving the field adds what was
 * typed (several at once when pasted), each checked as the gateway checks it;
 * Backspace in the empty field removes the last tag.
 */
export function DomainTagsInput({ id, value, onChange, onBlur, onDraftError, disabled, ...aria }: DomainTagsInputProps) {
  const [draft, setDraft] = useState("");

  const commit = (): boolean => {
    const parts = draft.split(/[\s,;]+/).filter(Boolean);
    if (parts.length === 0) return true;
    const next = [...value];
    const rejected: string[] = [];
    let problem: string | null = null;
    for (const part of parts) {
      const parsed = emailDomainSchema.safeParse(part.replace(/^@/, ""));
      if (!parsed.success) {
        rejected.push(part);
        problem ??= `"${part}" is not valid: it ${parsed.error.issues[0]?.message ?? "must be a domain name"}`;
      } else if (!next.includes(parsed.data)) {
        next.push(parsed.data);
      }
    }
    if (next.length !== value.length) onChange(next);
    setDraft(rejected.join(" "));
    onDraftError(problem);
    return problem === null;
  };

  return (
    <div
      className={cn(
        "flex min-h-9 w-full flex-wrap items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm focus-within:border-brand-500 focus-within:ring-2 focus-within:ring-brand-500/30 dark:border-slate-700 dark:bg-slate-950",
        aria["aria-invalid"] && "border-red-500",
        disabled && "opacity-60",
      )}
    >
      {value.length > 0 ? (
        <ul aria-label="Added domains" className="contents">
          {value.map((domain) => (
            <li key={domain} className="inline-flex items-center gap-1 rounded bg-slate-100 py-0.5 pl-2 pr-1 text-xs dark:bg-slate-800">
              {domain}
              <button
                type="button"
                disabled={disabled}
                aria-label={`Remove ${domain}`}
                onClick={() => onChange(value.filter((d) => d !== domain))}
                className="rounded p-0.5 hover:bg-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 dark:hover:bg-slate-700"
              >
                <X className="size-3" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        id={id}
        value={draft}
        disabled={disabled}
        autoComplete="off"
        placeholder={value.length === 0 ? "example.com" : "Add another"}
        className="min-w-32 flex-1 bg-transparent py-0.5 outline-none placeholder:text-slate-400"
        {...aria}
        onChange={(e) => {
          setDraft(e.target.value);
          if (e.target.value === "") onDraftError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === "," || e.key === " " || e.key === ";") {
            // Enter adds the domain rather than submitting the form.
            if (draft.trim() !== "" || e.key !== "Enter") e.preventDefault();
            commit();
          } else if (e.key === "Backspace" && draft === "" && value.length > 0) {
            onChange(value.slice(0, -1));
          }
        }}
        onBlur={() => {
          commit();
          onBlur?.();
        }}
        onPaste={(e) => {
          const text = e.clipboardData.getData("text");
          if (/[\s,;]/.test(text.trim())) {
            e.preventDefault();
            setDraft((d) => d + text);
          }
        }}
      />
    </div>
  );
}
