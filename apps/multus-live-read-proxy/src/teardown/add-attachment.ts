import type { Pod } from '@sriov-dra/k8s';
import type { PodNetworkReader } from '../reads/pod-network-reader.ts';
import type { CniRequest } from '../server/cni-request.ts';
import { k8sArgsOf } from '../pipeline/k8s-args.ts';
import type { AttachmentRecord } from './attachment-record.ts';
import { delInputsOf } from './del-inputs.ts';

const STATIC_POD_SOURCE = 'kubernetes.io/config.source';

/** The attachment record of an ADD: the Pod it read (its namespace and name as the runtime gave them) and its inputs. */
export function attachmentRecordOf(request: CniRequest, pod: Pod): AttachmentRecord {
  const k8s = k8sArgsOf(request.args);
  const source = pod.metadata.annotations?.[STATIC_POD_SOURCE];
  return {
    version: 1,
    containerID: request.containerID,
    del: delInputsOf(request),
    pod: { namespace: k8s.podNamespace, name: k8s.podName, uid: pod.metadata.uid },
    staticPod: source !== undefined && source !== 'api',
  };
}

/** The reader ADD uses, remembering the Pod it read: the attachment record names that Pod. */
export function podRememberingReader(reader: PodNetworkReader): { readonly reader: PodNetworkReader; pod(): Pod | undefined } {
  let read: Pod | undefined;
  return {
    reader: {
      mode: reader.mode,
      readPod: async (namespace, name, signal) => {
        read = await reader.readPod(namespace, name, signal);
        return read;
      },
      readNetworkAttachmentDefinition: (namespace, name, signal) => reader.readNetworkAttachmentDefinition(namespace, name, signal),
    },
    pod: () => read,
  };
}
