/**
 * The Chromium the end-to-end tests and the bench drive: Debian's, headless, with what it would do besides the page
 * switched off. One list, so that a page measured by the bench runs in the browser the tests run it in.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  // CI runs as root, and Chromium does not start as root with its sandbox.
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
  // Headless Chromium 156 still builds the address bar's suggestion popup, a WebUI page in a renderer of its own
  // (`chrome://omnibox-popup.top-chrome/`), for every new window, and Playwright opens a window per browser context:
  // about 1.2 s of CPU each, beside the page under test. Without it, three spec files (29 tests) ran in 108–109 s
  // instead of 174–179 s, and the host's CPU over the run halved (171–177 s against 339–340 s).
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
];
