#!/usr/bin/env node
import { runAdminCommand } from './admin-command.ts';
import { debugging, failureLine } from './cli-failure.ts';

try {
  process.exitCode = await runAdminCommand(process.argv.slice(2), process.stdout, process.stderr, process.env);
} catch (error) {
  // Commands report their own failures; what reaches here is unclassified, and still one line.
  process.stderr.write(`${failureLine(error)}\n`);
  if (debugging()) process.stderr.write(`${String((error as { stack?: unknown } | null)?.stack)}\n`);
  process.exitCode = 1;
}
