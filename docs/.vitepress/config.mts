/**
 * The docs site: the Markdown of docs/ as it is, built by VitePress. A link to a page that does not exist fails the
 * build (VitePress's default, kept: `ignoreDeadLinks` is not set), so `npm run docs:build` is also the site's link
 * check. Links out of docs/ into the repository (runtime/README.md, ARCHITECTURE.md, the schema) are not pages of the
 * site; test/docs/pages.test.ts checks that each names a file that exists.
 */
import { defineConfig } from "vitepress";

/** A link from a page out of docs/ into the rest of the repository. */
const REPOSITORY_FILE = /^(\.\/)?(\.\.\/)+(runtime|schemas|ARCHITECTURE|examples)(\/|\.md|$)/;

export default defineConfig({
  title: "toolgate",
  description: "Typed, precompiled, bounded gates for AI tool results.",
  cleanUrls: true,
  lastUpdated: false,
  // Only the links that leave the site are let through; a dead page link still fails the build.
  ignoreDeadLinks: [(url: string) => REPOSITORY_FILE.test(url)],
  themeConfig: {
    search: { provider: "local" },
    outline: [2, 3],
    sidebar: [
      {
        text: "Start",
        items: [
          { text: "Overview", link: "/" },
          { text: "Getting started", link: "/getting-started" },
        ],
      },
      {
        text: "The gate",
        items: [
          { text: "The contract", link: "/contract" },
          { text: "The gate at run time", link: "/gate" },
          { text: "Result kinds", link: "/result-kinds" },
          { text: "Oversize policies and read-back", link: "/oversize" },
          { text: "The command line", link: "/cli" },
        ],
      },
      {
        text: "Ways in",
        items: [
          { text: "MCP", link: "/mcp" },
          { text: "The proxy", link: "/proxy" },
          { text: "Agent frameworks", link: "/frameworks/" },
          { text: "AI SDK", link: "/frameworks/ai-sdk" },
          { text: "MCP client v2", link: "/frameworks/mcp-client-v2" },
          { text: "OpenAI Agents", link: "/frameworks/openai-agents" },
          { text: "LangChain.js", link: "/frameworks/langchain" },
          { text: "Claude Agent SDK", link: "/frameworks/claude-agent-sdk" },
          { text: "Mastra", link: "/frameworks/mastra" },
        ],
      },
      {
        text: "Running it",
        items: [
          { text: "Operations", link: "/operations" },
          { text: "Security", link: "/security" },
          { text: "Measuring the gate", link: "/measuring" },
          { text: "Reviewing contract changes", link: "/reviewing" },
          { text: "Benchmarks", link: "/benchmarks" },
        ],
      },
      {
        text: "Reference",
        items: [
          { text: "x-toolgate", link: "/reference/x-toolgate" },
          { text: "CLI", link: "/reference/cli" },
        ],
      },
    ],
  },
});
