#!/usr/bin/env node
// solc's command line as forge calls it (--version, --standard-json), over npm's solc package
// (the compiler built to WebAssembly): forge's own download of a native solc needs a network the
// tests may not have. SOLCJS names the folder npm installed solc into.
const solc = require(process.env.SOLCJS);
const fs = require("fs");
const path = require("path");

const args = process.argv.slice(2);
if (args.includes("--version")) {
  // forge reads the version from the last line, as the native compiler prints it
  const version = solc.version().replace(".Emscripten.clang", "");
  process.stdout.write("solc, the solidity compiler commandline interface\nVersion: " + version + "\n");
} else if (args.includes("--standard-json")) {
  const roots = [];
  args.forEach((arg, i) => {
    if (arg === "--base-path" || arg === "--include-path") roots.push(args[i + 1]);
  });
  const read = (file) => {
    for (const root of ["", ...roots]) {
      try {
        return { contents: fs.readFileSync(path.resolve(root, file), "utf8") };
      } catch (e) {
        // not under this root: the next one
      }
    }
    return { error: "not found: " + file };
  };
  let input = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => (input += chunk));
  process.stdin.on("end", () => process.stdout.write(solc.compile(input, { import: read })));
} else {
  process.stderr.write("this solc takes --version and --standard-json only\n");
  process.exit(1);
}
