/**
 * The plugin chain a shadow's configuration may have (§7 steps 4–6). The driver renders only this shape
 * and the Multus guard accepts only this shape, so both read it from here: a driver and a Multus daemon
 * of different releases agree on it as long as it is unchanged, and widening it is a contract change.
 */

/** The device-consuming plugin a shadow hands its VF to: the whole configuration, or a conflist's first entry. */
export const SRIOV_PLUGIN_TYPE = 'sriov';

/** Metaplugins allowed after the sriov entry of a conflist; each addition needs plugin-specific tests (§7 step 5). */
export const METAPLUGIN_ALLOWLIST: readonly string[] = ['tuning'];
