// Stand-in for string-width wherever the bundled CLI's help layout imports it (yargs's shim, cliui, wrap-ansi;
// scripts/build-cli.mjs swaps it in). Help text is printable ASCII almost always, and there every character is one
// column wide: the real string-width (Intl.Segmenter, Unicode and emoji regular expressions) is evaluated and asked
// only for other text. The placeholder below is replaced by the path of the copy the importer would have loaded, so
// non-ASCII text measures exactly as before. esbuild evaluates a require()d module on its first call, not at start.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
let real = null;

export default function stringWidth(text, options) {
  if (typeof text === "string" && PRINTABLE_ASCII.test(text)) return text.length;
  real ??= require(__REAL_STRING_WIDTH__).default;
  return real(text, options);
}
