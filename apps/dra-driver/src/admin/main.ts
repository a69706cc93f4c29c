#!/usr/bin/env node
import { runAdminCommand } from './admin-command.ts';

process.exitCode = await runAdminCommand(process.argv.slice(2), process.stdout, process.stderr);
