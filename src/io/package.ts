import { readFileSync } from "node:fs";

/** pisess's own version, from its package.json (dist/ and src/ both sit one level below it). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
