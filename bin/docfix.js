#!/usr/bin/env node
// The `docfix` executable: checks the Node version (TypeScript runs by type stripping, Node >= 22.18),
// then hands over to the CLI in cli/main.ts.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `docfix needs Node.js 22.18 or newer (24 LTS recommended); this is Node.js ${process.versions.node}.\n`,
  );
  process.exit(1);
}
const { main } = await import('../cli/main.ts');
await main(process.argv);
