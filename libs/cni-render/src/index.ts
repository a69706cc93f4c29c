// Pure CNI logic (spec §6.5, §7, §9): renderShadowConfig, buildShadowNad, network selection parsing and
// mergeManagedSelections, interface naming. Populated by the cni-render milestone.
export {};
