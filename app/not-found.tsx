import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto flex min-h-[60vh] max-w-lg flex-col items-center justify-center gap-3 p-8 text-center">
      <p className="text-sm font-semibold text-brand-600">404</p>
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="text-slate-600 dark:text-slate-300">This page does not exist, or you do not have access to it.</p>
      <Link href="/orgs" className="font-medium text-brand-600 hover:underline">
        Go to your organization
      </Link>
    </main>
  );
}
