#!/usr/bin/env node
// The `node-policy-operator` command: tools/launch/launch.js runs dist/main.js when built, else src/main.ts.
import { launch } from '../../../tools/launch/launch.js';

launch(import.meta.url, 'main', 'node-policy-operator');
