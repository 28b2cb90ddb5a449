/** Starts a download the browser streams to disk under the server's file name. */
export function downloadFrom(url: string): void {
  const a = Object.assign(document.createElement("a"), { href: url, download: "" });
  document.body.appendChild(a);
  a.click();
  a.remove();
}
