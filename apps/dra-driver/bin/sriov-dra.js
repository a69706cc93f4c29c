#!/usr/bin/env node
// The `sriov-dra` command: tools/launch/launch.js runs dist/admin/main.js when built, else src/admin/main.ts.
import { launch } from '../../../tools/launch/launch.js';

launch(import.meta.url, 'admin/main', 'sriov-dra');
