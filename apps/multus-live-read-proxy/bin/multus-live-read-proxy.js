#!/usr/bin/env node
// The `multus-live-read-proxy` command: tools/launch/launch.js runs dist/main.js when built, else src/main.ts.
import { launch } from '../../../tools/launch/launch.js';

launch(import.meta.url, 'main', 'multus-live-read-proxy');
