#!/usr/bin/env node
// The `sriov-dra-driver` command: tools/launch/launch.js runs dist/main.js when built, else src/main.ts.
import { launch } from '../../../tools/launch/launch.js';

launch(import.meta.url, 'main', 'sriov-dra-driver');
