// The floor of the console's stack: a root layout with no providers.
export const metadata = { title: "Floor" };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
