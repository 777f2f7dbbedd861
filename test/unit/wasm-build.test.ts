import { readFileSync } from "node:fs";
import { join } from "node:path";
import wabtInit from "wabt";
import { describe, expect, it } from "vitest";
import { SCAN_WASM } from "../../src/io/scan/wasm.js";
import { ROOT } from "../support/helpers.js";

describe("the committed wasm scanner", () => {
  it("is exactly what src/io/scan/scan.wat compiles to (run npm run build:wasm after editing it)", async () => {
    const wabt = await wabtInit();
    const mod = wabt.parseWat("scan.wat", readFileSync(join(ROOT, "src", "io", "scan", "scan.wat"), "utf8"), { simd: true });
    mod.validate();
    const { buffer } = mod.toBinary({});
    mod.destroy();
    expect(Buffer.from(buffer).toString("base64")).toBe(SCAN_WASM);
  });
});
