import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // A rest sibling leaves a property out on purpose: `const { email, ...rest } = fields`.
      "@typescript-eslint/no-unused-vars": ["warn", { ignoreRestSiblings: true }],
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
