// Kubernetes API access (spec §8.4, §9, §12.3): live reads, JSON Patch with test preconditions, finalizer
// removal, typed API errors, retry, informers, work queue, leader election, events. Populated by the
// control-plane milestone.
export {};
