/**
 * The Chromium the end-to-end tests and the bench drive: Debian's, headless, with what it would do besides the page
 * switched off. One list, so that a page measured by the bench runs in the browser the tests run it in.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Chromium honours only the last `--disable-features` it is given, and Playwright appends ours after its own, so ours
 * repeats the features Playwright disables (its `chromiumSwitches`, playwright-core 1.65) before adding the console's.
 * `e2e/chromium.spec.ts` fails when the two lists drift apart.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Headless Chromium 156 still builds the address bar's suggestion popup, a WebUI page in a renderer of its own
 * (`chrome://omnibox-popup.top-chrome/`), for every new window, and Playwright opens a window per browser context:
 * about 1.2 s of CPU each, beside the page under test. Without it (and with Playwright's list kept, above), three spec
 * files (29 tests) ran in 90 s on 145 s of the host's CPU, against 174–179 s on 339–340 s with it.
 */
export const OMNIBOX_POPUP_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

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
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUP_FEATURES].join(",")}`,
];
