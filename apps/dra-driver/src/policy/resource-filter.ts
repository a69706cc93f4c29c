import type { ResourceFilter } from '@sriov-dra/contract';
import type { LinkType, VirtualFunction } from '../discovery/virtual-function.ts';

const LINK_TYPES: Readonly<Record<NonNullable<ResourceFilter['linkType']>, LinkType>> = {
  eth: 'ethernet',
  ethernet: 'ethernet',
  ib: 'infiniband',
  infiniband: 'infiniband',
};

/** An empty or absent list places no constraint; otherwise the device's value must be listed. */
function allows(list: readonly string[] | undefined, value: string | undefined): boolean {
  if (list === undefined || list.length === 0) return true;
  return value !== undefined && list.includes(value);
}

/**
 * Whether one filter selects the VF: every field it sets must match (AND). A field whose device value
 * discovery does not know (a PF without a netdev, an unbound VF) never matches a nonempty list.
 */
export function matchesResourceFilter(filter: ResourceFilter, vf: VirtualFunction): boolean {
  return (
    allows(filter.vendors, vf.vendor) &&
    allows(filter.devices, vf.deviceID) &&
    allows(filter.pciAddresses, vf.pciAddress) &&
    allows(filter.pfNames, vf.pf.netdev) &&
    allows(filter.pfPciAddresses, vf.pf.pciAddress) &&
    allows(filter.drivers, vf.driver) &&
    (filter.linkType === undefined || LINK_TYPES[filter.linkType] === vf.pf.linkType)
  );
}

/** Whether any filter selects the VF (OR); a config without filters selects every VF. */
export function matchesResourceFilters(filters: readonly ResourceFilter[] | undefined, vf: VirtualFunction): boolean {
  if (filters === undefined || filters.length === 0) return true;
  return filters.some((filter) => matchesResourceFilter(filter, vf));
}
