import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "next/link",
              importNames: ["default"],
              message: "Use IntentLink (components/common/intent-link.tsx): a console page is a server render, prefetched only when the reader reaches for its link.",
            },
          ],
        },
      ],
    },
  },
  { ignores: [".next/**", "node_modules/**", ".data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "lib/gateway/store/migrations/**"] },
];

export default config;
