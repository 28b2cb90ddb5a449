export default function NotFound() {
  return (
    <main className="mx-auto flex min-h-[60vh] max-w-lg flex-col items-center justify-center gap-3 p-8 text-center">
      <p className="text-sm font-semibold text-brand-600">404</p>
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="text-slate-600 dark:text-slate-300">This page does not exist, or you do not have access to it.</p>
      {/* A plain link: this boundary loads with every page, and a client-side Link here would ship a second copy of
          next/link's code in its own chunk (the shell has one); from a dead end a full load costs nothing. */}
      {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
      <a href="/orgs" className="font-medium text-brand-600 hover:underline">
        Go to your organization
      </a>
    </main>
  );
}
