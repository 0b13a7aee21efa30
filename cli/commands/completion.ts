// `docfix completion SHELL`: prints the completion script of bash, zsh or fish.
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion.ts';
import { dispatch, globalOptions, type GlobalOptions } from '../context.ts';

export interface CompletionOptions {
  globals: GlobalOptions;
  shell: Shell;
}

export function register(program: Command): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell').choices([...SHELLS]))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(docfix completion bash)
  $ docfix completion zsh > "\${fpath[1]}/_docfix"
  $ docfix completion fish > ~/.config/fish/completions/docfix.fish`,
    )
    .action(async (shell: Shell, _o: unknown, cmd: Command) => {
      const options: CompletionOptions = { globals: globalOptions(cmd), shell };
      await dispatch('completion', options, async (o) => {
        process.stdout.write(completionScript(program, o.shell));
      });
    });
}
