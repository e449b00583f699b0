#!/usr/bin/env node
/**
 * The `chronicle` command's entry. It catches SIGINT and SIGTERM before the program is loaded (loading it
 * takes a while, and a supervisor may stop a server at any moment: stop-signals.ts), then runs it.
 */
import { catchStopSignals } from './stop-signals.js';

catchStopSignals();
const { main } = await import('./program.js');
process.exitCode = await main(process.argv);
