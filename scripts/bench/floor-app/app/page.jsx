// One heading and a line of text, no client code: what any page of Next.js and React costs a browser.
export default function Page() {
  return (
    <main>
      <h1>Floor</h1>
      <p>A page of the same Next.js and React as the console, with nothing of the console in it.</p>
    </main>
  );
}
