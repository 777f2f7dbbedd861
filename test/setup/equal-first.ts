import { isDeepStrictEqual } from "node:util";
import { chai } from "vitest";

/**
 * toEqual and toStrictEqual ask node's isDeepStrictEqual first, and run vitest's own comparison only when it says
 * the values differ (for the verdict on looser equality, and for the diff). Whatever isDeepStrictEqual calls equal
 * both matchers call equal too (same prototypes, same own keys, sparse holes and -0 included), and vitest's deep
 * equality, written for readable diffs, is many times slower on the large values the corpus tests compare: about
 * 2 s of the suite's CPU. A negated assertion always takes vitest's way.
 *
 * With `isolate: false` a worker runs this before each of its files; the matchers are wrapped only once.
 */
const WRAPPED = Symbol.for("pisess.test.equal-first");
const registry = globalThis as { [WRAPPED]?: true };
if (registry[WRAPPED] === undefined) {
  registry[WRAPPED] = true;
  chai.use((c, utils) => {
    for (const name of ["toEqual", "toStrictEqual"]) {
      utils.overwriteMethod(
        c.Assertion.prototype,
        name,
        (original: (...args: unknown[]) => unknown) =>
          function (this: object, ...args: unknown[]): unknown {
            if (!utils.flag(this, "negate") && args.length === 1 && isDeepStrictEqual(utils.flag(this, "object"), args[0]))
              return undefined;
            return original.apply(this, args);
          },
      );
    }
  });
}
