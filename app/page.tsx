import { IntentLink } from "@/components/common/intent-link";

export default function HomePage() {
  return (
    <main className="mx-auto flex min-h-screen max-w-2xl flex-col justify-center gap-6 p-8">
      <h1 className="text-3xl font-semibold tracking-tight">Stratus</h1>
      <p className="text-slate-600 dark:text-slate-300">
        The console for your organization on the Stratus cloud platform: projects, access, security, billing and audit logs.
      </p>
      <div className="flex gap-3">
        <IntentLink href="/sign-in" className="rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700">
          Sign in
        </IntentLink>
        <a href="/v1/openapi.json" className="rounded-md border border-slate-300 px-4 py-2 font-medium dark:border-slate-700">
          API reference (OpenAPI)
        </a>
      </div>
    </main>
  );
}
