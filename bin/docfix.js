#!/usr/bin/env node
// The `docfix` executable: checks the Node version, then hands over to the CLI in cli/main.ts
// (dist/cli/main.js in an installed package; see entry.js). The version and the top-level help page
// need nothing of the CLI's command tree, so they are answered without loading it.
import { checkNode, entry, version } from './entry.js';

checkNode();
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // It is package.json's.
  process.stdout.write(`${version}\n`);
} else if (args.length === 0 || (args.length === 1 && ['help', '--help', '-h'].includes(args[0]))) {
  // The same page as the tree's own help, from its generated rows (cli/help-page.ts).
  const { printHelpPage } = await import(entry('cli/help-page'));
  printHelpPage();
} else {
  const { main } = await import(entry('cli/main'));
  await main(process.argv);
}
