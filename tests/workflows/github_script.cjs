// Runs one actions/github-script `script:` as the action runs it, against a recording
// stand-in of its `github`, `context` and `core` (tests/workflows/test_plan_diff_comment.py).
//
//   node github_script.cjs SCRIPT_FILE FIXTURE_FILE   (env: the step's `env:`)
//
// The action builds `new AsyncFunction(...Object.keys(args), source)` and calls it with
// the values (actions/github-script src/async-function.ts @ v7.0.1, callAsyncFunction;
// the argument names: src/main.ts). FIXTURE_FILE is JSON: `paginate` answers, by method
// name ("pulls.list", "pulls.listFiles", "issues.listComments"), and `repo`. Prints one
// JSON array of calls: [method, params] for each paginate and write, ["info", text].
"use strict";

const fs = require("node:fs");

async function main([scriptFile, fixtureFile]) {
  const source = fs.readFileSync(scriptFile, "utf8");
  const fixture = JSON.parse(fs.readFileSync(fixtureFile, "utf8"));
  const calls = [];
  const record = (name) => async (params) => {
    calls.push([name, params]);
    return { data: {} };
  };
  const github = {
    rest: {
      pulls: { list: "pulls.list", listFiles: "pulls.listFiles" },
      issues: {
        listComments: "issues.listComments",
        createComment: record("issues.createComment"),
        updateComment: record("issues.updateComment"),
      },
    },
    paginate: async (method, params) => {
      calls.push([method, params]);
      if (!(method in fixture.paginate)) throw new Error(`no fixture for ${method}`);
      return fixture.paginate[method];
    },
  };
  const context = { repo: fixture.repo };
  const core = { info: (text) => calls.push(["info", text]) };
  const AsyncFunction = Object.getPrototypeOf(async () => null).constructor;
  const args = { require, github, context, core };
  await new AsyncFunction(...Object.keys(args), source)(...Object.values(args));
  process.stdout.write(JSON.stringify(calls) + "\n");
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`github_script.cjs: ${err.stack || err}\n`);
  process.exit(2);
});
