// Preloaded by test/quick-start.test.ts (node --import): stdout claims to be a terminal PISESS_TEST_COLUMNS wide.
Object.defineProperty(process.stdout, "isTTY", { value: true, configurable: true });
Object.defineProperty(process.stdout, "columns", { value: Number(process.env.PISESS_TEST_COLUMNS), configurable: true });
