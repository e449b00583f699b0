#!/usr/bin/env node
/**
 * The `chronicle` command's entry. It catches SIGINT and SIGTERM before anything else is loaded (loading
 * takes a while, and a supervisor may stop a server at any moment: stop-signals.ts), then reports errors
 * that escape a stream consumer instead of dying of them (stray-errors.ts; it loads RxJS, hence after),
 * then runs the program.
 */
import { catchStopSignals } from './stop-signals.js';

catchStopSignals();
const { reportStrayErrors } = await import('./stray-errors.js');
reportStrayErrors();
const { main } = await import('./program.js');
process.exitCode = await main(process.argv);
