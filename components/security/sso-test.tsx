"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import type { SsoProvider } from "@/lib/contract/sso";
import {
  isSsoTestReport,
  SSO_TEST_CHANNEL,
  SSO_TEST_CLAIM_NAMES,
  SSO_TEST_CLAIMS_WHEN_SENT,
  SSO_TEST_START_PATH,
  type SsoTestReport,
  type SsoTestStartResponse,
  type SsoTestStepStatus,
} from "@/lib/contract/sso-test";

/**
 * "Test sign-in" of an SSO provider: the server starts the flow (POST /api/sso-test), a popup
 * signs in at the provider, and the popup's result page posts the report on a same-origin
 * BroadcastChannel, taken here only for the test this page started. The popup is opened at the
 * click (so no popup blocker stops it), then sent to the provider once the server answers.
 */

export type SsoTestState =
  | { phase: "idle" }
  | { phase: "starting" | "waiting"; issuer: string }
  | { phase: "done"; issuer: string; report: SsoTestReport }
  | { phase: "error"; issuer: string; message: string };

const POPUP_NAME = "stratus-sso-test";
const POPUP_FEATURES = "popup,width=560,height=720";

async function startTest(orgId: string, providerId: string): Promise<SsoTestStartResponse> {
  const res = await fetch(SSO_TEST_START_PATH, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organization_id: orgId, provider_id: providerId }),
  });
  const body = (await res.json().catch(() => ({}))) as Partial<SsoTestStartResponse> & { message?: unknown };
  if (!res.ok) throw new Error(typeof body.message === "string" ? body.message : `The test could not start (HTTP ${res.status})`);
  return body as SsoTestStartResponse;
}

export function useSsoTest(orgId: string) {
  const [state, setState] = useState<SsoTestState>({ phase: "idle" });
  const channel = useRef<BroadcastChannel | null>(null);
  const popup = useRef<Window | null>(null);
  // The test under way, by number: Cancel and a new start move it on, so that an older start's answer changes nothing
  // (it would open a channel, or show a result, for a test the user has left).
  const generation = useRef(0);

  const stopListening = useCallback(() => {
    channel.current?.close();
    channel.current = null;
  }, []);
  // Leaving the page ends the test under way too: a start answered afterwards opens no channel and sends no popup on.
  useEffect(
    () => () => {
      generation.current += 1;
      stopListening();
    },
    [stopListening],
  );

  const start = useCallback(
    async (provider: SsoProvider) => {
      stopListening();
      const mine = ++generation.current;
      const issuer = provider.issuer_uri;
      const opened = window.open("about:blank", POPUP_NAME, POPUP_FEATURES);
      popup.current = opened;
      setState({ phase: "starting", issuer });
      let answer: SsoTestStartResponse;
      try {
        answer = await startTest(orgId, provider.id);
      } catch (error) {
        // The popup, by its name, may be a newer test's by now: left alone.
        if (mine !== generation.current) return;
        opened?.close();
        setState({ phase: "error", issuer, message: error instanceof Error ? error.message : "The test could not start" });
        return;
      }
      if (mine !== generation.current) return;
      if ("report" in answer) {
        opened?.close();
        setState({ phase: "done", issuer, report: answer.report });
        return;
      }
      if (!opened) {
        setState({ phase: "error", issuer, message: "The browser blocked the popup window: allow popups for this console and test again" });
        return;
      }
      const listening = new BroadcastChannel(SSO_TEST_CHANNEL);
      channel.current = listening;
      listening.onmessage = (event: MessageEvent<unknown>) => {
        if (!isSsoTestReport(event.data) || event.data.test_id !== answer.test_id) return;
        stopListening();
        setState({ phase: "done", issuer, report: event.data });
      };
      opened.location.href = answer.authorization_url;
      setState({ phase: "waiting", issuer });
    },
    [orgId, stopListening],
  );

  const cancel = useCallback(() => {
    generation.current += 1;
    stopListening();
    popup.current?.close();
    setState({ phase: "idle" });
  }, [stopListening]);

  return { state, start, cancel, busy: state.phase === "starting" };
}

const STATUS: Record<SsoTestStepStatus, { text: string; tone: "good" | "bad" | "neutral" }> = {
  passed: { text: "Passed", tone: "good" },
  failed: { text: "Failed", tone: "bad" },
  not_run: { text: "Not run", tone: "neutral" },
};

function summary(state: Exclude<SsoTestState, { phase: "idle" }>): string {
  switch (state.phase) {
    case "starting":
      return "Starting the test sign-in…";
    case "waiting":
      return "Sign in at the provider in the popup window; the result appears here. Nobody is signed in to the console by the test.";
    case "error":
      return state.message;
    case "done": {
      if (state.report.ok) return "Every step passed: this provider signs people in.";
      const failed = state.report.steps.find((s) => s.status === "failed");
      return `The test sign-in failed at the step ${failed?.name ?? "?"}.`;
    }
  }
}

/** The test's progress and report: a status line, then each step with its result and reason, then the claims. */
export function SsoTestPanel({ state, onClose }: { state: SsoTestState; onClose: () => void }) {
  if (state.phase === "idle") return null;
  const report = state.phase === "done" ? state.report : null;
  const claims = report?.claims;
  return (
    <Card aria-label="Test sign-in">
      <CardHeader
        title={`Test sign-in: ${state.issuer}`}
        description="The OpenID Connect Authorization Code flow with PKCE, state and nonce, checked step by step."
        action={
          <Button variant="secondary" size="sm" onClick={onClose}>
            {state.phase === "waiting" || state.phase === "starting" ? "Cancel" : "Close"}
          </Button>
        }
      />
      <div className="space-y-4 p-4 text-sm">
        <p role="status" aria-label="Test sign-in result" className={state.phase === "error" || (report && !report.ok) ? "font-medium text-red-700 dark:text-red-400" : "font-medium"}>
          {summary(state)}
        </p>
        {report ? (
          <ol aria-label="Test sign-in steps" className="space-y-2">
            {report.steps.map((step) => (
              <li key={step.id} className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
                <div className="flex items-center gap-2">
                  <span className="font-medium">{step.name}</span>
                  <Badge tone={STATUS[step.status].tone}>{STATUS[step.status].text}</Badge>
                </div>
                <p className="mt-1 break-words text-slate-600 dark:text-slate-300">{step.detail}</p>
              </li>
            ))}
          </ol>
        ) : null}
        {claims ? (
          <div>
            <h3 className="font-medium">ID token claims</h3>
            <dl aria-label="ID token claims" className="mt-1 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
              {SSO_TEST_CLAIM_NAMES.filter((name) => !SSO_TEST_CLAIMS_WHEN_SENT.has(name) || claims[name] !== undefined).map((name) => (
                <div key={name} className="contents">
                  <dt className="font-mono text-xs text-slate-500 dark:text-slate-400">{name}</dt>
                  <dd className="break-all">{claims[name] === undefined ? "(absent)" : String(claims[name])}</dd>
                </div>
              ))}
            </dl>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
