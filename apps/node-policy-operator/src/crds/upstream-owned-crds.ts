// The CRDs other projects own, in the form this project needs them (apps/node-policy-operator/crds/*.yaml,
// where each file says why it differs from upstream's), as data: `crds apply` runs from the operator's image,
// where the repository is not. Written by test/crds/write-upstream-owned-crds.ts; upstream-owned-crds.spec.ts
// fails while it and the YAML differ.
import type { CrdManifest } from './crd-manifest.ts';

export const UPSTREAM_OWNED_CRDS: readonly CrdManifest[] = [
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: 'network-attachment-definitions.k8s.cni.cncf.io',
    },
    spec: {
      group: 'k8s.cni.cncf.io',
      scope: 'Namespaced',
      names: {
        plural: 'network-attachment-definitions',
        singular: 'network-attachment-definition',
        kind: 'NetworkAttachmentDefinition',
        shortNames: ['net-attach-def'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              description: 'A secondary network a Pod can attach to, described by a CNI configuration.',
              type: 'object',
              properties: {
                apiVersion: {
                  type: 'string',
                },
                kind: {
                  type: 'string',
                },
                metadata: {
                  type: 'object',
                },
                spec: {
                  type: 'object',
                  properties: {
                    config: {
                      description: 'CNI configuration (JSON); empty means a file on the node.',
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: 'sriovnetworknodepolicies.sriovnetwork.openshift.io',
      annotations: {
        'sriovnetwork.k8snetworkplumbingwg.io/dra-schema': 'sriov-dra',
      },
    },
    spec: {
      group: 'sriovnetwork.openshift.io',
      scope: 'Namespaced',
      names: {
        plural: 'sriovnetworknodepolicies',
        singular: 'sriovnetworknodepolicy',
        kind: 'SriovNetworkNodePolicy',
        listKind: 'SriovNetworkNodePolicyList',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
          },
          additionalPrinterColumns: [
            {
              name: 'DRA Ready',
              type: 'string',
              description: 'Status of the DRAConfigurationReady condition the node-policy operator writes (True, False or Unknown).',
              jsonPath: '.status.conditions[?(@.type=="DRAConfigurationReady")].status',
            },
            {
              name: 'DRA Reason',
              type: 'string',
              description: 'Reason of the DRAConfigurationReady condition, e.g. DRAConfigurationApplied or SriovNetworkNotReady.',
              jsonPath: '.status.conditions[?(@.type=="DRAConfigurationReady")].reason',
            },
            {
              name: 'Age',
              type: 'date',
              jsonPath: '.metadata.creationTimestamp',
            },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: {
                  type: 'string',
                },
                kind: {
                  type: 'string',
                },
                metadata: {
                  type: 'object',
                },
                spec: {
                  type: 'object',
                  required: ['nicSelector', 'nodeSelector', 'numVfs', 'resourceName'],
                  properties: {
                    resourceName: {
                      type: 'string',
                      maxLength: 63,
                      pattern: '^[a-zA-Z0-9]([a-zA-Z0-9_-]*[a-zA-Z0-9])?$',
                    },
                    nodeSelector: {
                      type: 'object',
                      additionalProperties: {
                        type: 'string',
                      },
                    },
                    numVfs: {
                      type: 'integer',
                      minimum: 0,
                    },
                    priority: {
                      type: 'integer',
                      minimum: 0,
                      maximum: 99,
                    },
                    mtu: {
                      type: 'integer',
                      minimum: 1,
                    },
                    nicSelector: {
                      type: 'object',
                      properties: {
                        vendor: {
                          type: 'string',
                        },
                        deviceID: {
                          type: 'string',
                        },
                        rootDevices: {
                          type: 'array',
                          items: {
                            type: 'string',
                          },
                        },
                        pfNames: {
                          type: 'array',
                          items: {
                            type: 'string',
                          },
                        },
                        netFilter: {
                          type: 'string',
                        },
                      },
                    },
                    deviceType: {
                      type: 'string',
                      enum: ['netdevice', 'vfio-pci'],
                      default: 'netdevice',
                    },
                    isRdma: {
                      type: 'boolean',
                    },
                    needVhostNet: {
                      type: 'boolean',
                    },
                    linkType: {
                      type: 'string',
                      enum: ['eth', 'ETH', 'ib', 'IB'],
                    },
                    eSwitchMode: {
                      type: 'string',
                      enum: ['legacy', 'switchdev'],
                    },
                    vdpaType: {
                      type: 'string',
                      enum: ['virtio', 'vhost'],
                    },
                    excludeTopology: {
                      type: 'boolean',
                    },
                    externallyManaged: {
                      type: 'boolean',
                    },
                    bridge: {
                      description: 'OVS bridge of the matching PFs; valid only with eSwitchMode switchdev.',
                      type: 'object',
                      properties: {
                        ovs: {
                          type: 'object',
                          properties: {
                            bridge: {
                              type: 'object',
                              properties: {
                                datapathType: {
                                  type: 'string',
                                },
                                externalIDs: {
                                  type: 'object',
                                  additionalProperties: {
                                    type: 'string',
                                  },
                                },
                                otherConfig: {
                                  type: 'object',
                                  additionalProperties: {
                                    type: 'string',
                                  },
                                },
                                failMode: {
                                  type: 'string',
                                  enum: ['secure', 'standalone'],
                                },
                              },
                            },
                            uplink: {
                              type: 'object',
                              properties: {
                                interface: {
                                  type: 'object',
                                  properties: {
                                    type: {
                                      type: 'string',
                                    },
                                    options: {
                                      type: 'object',
                                      additionalProperties: {
                                        type: 'string',
                                      },
                                    },
                                    externalIDs: {
                                      type: 'object',
                                      additionalProperties: {
                                        type: 'string',
                                      },
                                    },
                                    otherConfig: {
                                      type: 'object',
                                      additionalProperties: {
                                        type: 'string',
                                      },
                                    },
                                    mtuRequest: {
                                      type: 'integer',
                                    },
                                  },
                                },
                              },
                            },
                          },
                        },
                      },
                    },
                    dra: {
                      description:
                        "Custom DRA attributes of this policy's VFs. Present (even empty), the node-policy operator generates a DeviceAttributes object of this policy's own (dra-policy-<policy UID>-attrs) and selects it for exactly this policy's VFs; absent, the policy behaves as without DRA. Its status is the DRAConfigurationReady condition. Unknown members are refused by the webhook and reported as InvalidDRAAttribute, not silently dropped.",
                      type: 'object',
                      'x-kubernetes-preserve-unknown-fields': true,
                      properties: {
                        attributes: {
                          description:
                            "Attribute name to value, published on each of this policy's VFs. A name is <DNS subdomain of at most 63 characters>/<C identifier of at most 32 characters>, e.g. networking.example.com/rail. At most 31 entries: the operator adds k8s.cni.cncf.io/resourceName, and a device carries at most 32 attributes, discovered ones included (the driver withholds a device over the limit). Names that hardware discovery publishes (vendor, deviceID, pciAddress, PFName, pcieRoot ...) and the ones the operator generates (k8s.cni.cncf.io/resourceName, netAttachDefName, netAttachDefNamespace) are refused. Two names are not published but read by the operator: sriovnetwork.openshift.io/sriovNetworkName and sriovnetwork.openshift.io/sriovNetworkNamespace, set together as string values, name the SriovNetwork whose NetworkAttachmentDefinition becomes the template of these VFs (a name of at most 64 characters and a namespace name; the namespace is never defaulted).",
                          type: 'object',
                          maxProperties: 32,
                          'x-kubernetes-validations': [
                            {
                              rule: 'self.size() <= 31',
                              message:
                                'at most 31 attributes (the SriovNetwork reference keys included) fit the per-device limit of 32 with the resourceName attribute the operator generates',
                            },
                            {
                              rule: "self.all(k, k.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z_][A-Za-z0-9_]*$') && k.indexOf('/') <= 63 && k.size() - k.indexOf('/') - 1 <= 32)",
                              message: 'attribute names must be <DNS subdomain of at most 63 characters>/<C identifier of at most 32 characters>',
                            },
                            {
                              rule: "!self.exists(k, k in [ 'sriovnetwork.k8snetworkplumbingwg.io/vendor', 'sriovnetwork.k8snetworkplumbingwg.io/deviceID', 'sriovnetwork.k8snetworkplumbingwg.io/pfDeviceID', 'sriovnetwork.k8snetworkplumbingwg.io/pciAddress', 'sriovnetwork.k8snetworkplumbingwg.io/PFName', 'sriovnetwork.k8snetworkplumbingwg.io/EswitchMode', 'sriovnetwork.k8snetworkplumbingwg.io/vfID', 'sriovnetwork.k8snetworkplumbingwg.io/pfPciAddress', 'sriovnetwork.k8snetworkplumbingwg.io/linkType', 'sriovnetwork.k8snetworkplumbingwg.io/rdmaCapable', 'k8s.cni.cncf.io/deviceID', 'resource.kubernetes.io/pcieRoot', 'resource.kubernetes.io/pciBusID', 'resource.kubernetes.io/numaNode', 'dra.net/numaNode', 'k8s.cni.cncf.io/resourceName', 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefName', 'sriovnetwork.k8snetworkplumbingwg.io/netAttachDefNamespace'])",
                              message:
                                'hardware discovery owns this attribute, or the operator generates it (resourceName, netAttachDefName, netAttachDefNamespace)',
                            },
                            {
                              rule: "('sriovnetwork.openshift.io/sriovNetworkName' in self) == ('sriovnetwork.openshift.io/sriovNetworkNamespace' in self)",
                              message:
                                'sriovnetwork.openshift.io/sriovNetworkName and sriovnetwork.openshift.io/sriovNetworkNamespace are set together or not at all',
                            },
                            {
                              rule: "!('sriovnetwork.openshift.io/sriovNetworkName' in self) || (has(self['sriovnetwork.openshift.io/sriovNetworkName'].string) && self['sriovnetwork.openshift.io/sriovNetworkName'].string.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'))",
                              message: 'sriovnetwork.openshift.io/sriovNetworkName must be a string value holding an object name of at most 64 characters',
                            },
                            {
                              rule: "!('sriovnetwork.openshift.io/sriovNetworkNamespace' in self) || (has(self['sriovnetwork.openshift.io/sriovNetworkNamespace'].string) && self['sriovnetwork.openshift.io/sriovNetworkNamespace'].string.matches(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && self['sriovnetwork.openshift.io/sriovNetworkNamespace'].string.size() <= 63)",
                              message: 'sriovnetwork.openshift.io/sriovNetworkNamespace must be a string value holding a namespace name',
                            },
                          ],
                          additionalProperties: {
                            description: 'One attribute value; exactly one of int, bool, string or version is set. false and 0 are values.',
                            type: 'object',
                            'x-kubernetes-map-type': 'atomic',
                            'x-kubernetes-preserve-unknown-fields': true,
                            properties: {
                              int: {
                                description: 'An integer value within -9007199254740991 and 9007199254740991 (±(2^53-1)).',
                                type: 'integer',
                                format: 'int64',
                                minimum: -9007199254740991,
                                maximum: 9007199254740991,
                              },
                              bool: {
                                description: 'A boolean value.',
                                type: 'boolean',
                              },
                              string: {
                                description: 'A string value of at most 64 bytes of UTF-8.',
                                type: 'string',
                                maxLength: 64,
                              },
                              version: {
                                description: 'A Semantic Versioning 2.0.0 version such as 1.2.3 or 2.0.0-rc.1, at most 64 characters.',
                                type: 'string',
                                maxLength: 64,
                                pattern:
                                  '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\\+[0-9a-zA-Z-]+(\\.[0-9a-zA-Z-]+)*)?$',
                              },
                            },
                            'x-kubernetes-validations': [
                              {
                                rule: '[has(self.int), has(self.bool), has(self.string), has(self.version)].filter(x, x).size() == 1',
                                message: 'exactly one of int, bool, string or version must be set',
                              },
                              {
                                rule: '!has(self.string) || bytes(self.string).size() <= 64',
                                message: 'string values are at most 64 bytes of UTF-8',
                              },
                            ],
                          },
                        },
                      },
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      description:
                        "Conditions, one per type. The node-policy operator writes DRAConfigurationReady: True with reason DRAConfigurationApplied once the policy's spec.dra is validated and its generated DeviceAttributes and SriovResourcePolicy configs are applied (not proof of any Pod's connectivity); otherwise False with reason DRAInactive, InvalidDRAAttribute, SriovNetworkNotFound, SriovNetworkNotReady, SourceNADNotReady, SourceAccessDenied, ConflictingDRAMapping, UnsupportedManagedSelector or DRAConfigurationSyncFailed, and the message says what to fix.",
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                        properties: {
                          type: {
                            description: 'The condition type in CamelCase, e.g. DRAConfigurationReady; at most 316 characters.',
                            type: 'string',
                            maxLength: 316,
                            pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
                          },
                          status: {
                            description: 'True, False or Unknown.',
                            type: 'string',
                            enum: ['True', 'False', 'Unknown'],
                          },
                          observedGeneration: {
                            description: 'The metadata.generation the condition was computed from; older than the current generation, it is stale.',
                            type: 'integer',
                            format: 'int64',
                            minimum: 0,
                          },
                          lastTransitionTime: {
                            description: 'When status last changed (RFC 3339, to the second); a new reason or message keeps it.',
                            type: 'string',
                            format: 'date-time',
                          },
                          reason: {
                            description: 'Why the condition has its status, a CamelCase word for programs to match (1 to 1024 characters).',
                            type: 'string',
                            maxLength: 1024,
                            minLength: 1,
                            pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
                          },
                          message: {
                            description: 'What happened, for people (at most 32768 characters); programs match the reason.',
                            type: 'string',
                            maxLength: 32768,
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: 'sriovnetworknodestates.sriovnetwork.openshift.io',
    },
    spec: {
      group: 'sriovnetwork.openshift.io',
      scope: 'Namespaced',
      names: {
        plural: 'sriovnetworknodestates',
        singular: 'sriovnetworknodestate',
        kind: 'SriovNetworkNodeState',
        listKind: 'SriovNetworkNodeStateList',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
          },
          additionalPrinterColumns: [
            {
              name: 'Sync Status',
              type: 'string',
              jsonPath: '.status.syncStatus',
            },
            {
              name: 'Age',
              type: 'date',
              jsonPath: '.metadata.creationTimestamp',
            },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: {
                  type: 'string',
                },
                kind: {
                  type: 'string',
                },
                metadata: {
                  type: 'object',
                },
                spec: {
                  type: 'object',
                  'x-kubernetes-preserve-unknown-fields': true,
                },
                status: {
                  type: 'object',
                  'x-kubernetes-preserve-unknown-fields': true,
                  properties: {
                    syncStatus: {
                      type: 'string',
                    },
                    interfaces: {
                      type: 'array',
                      items: {
                        type: 'object',
                        'x-kubernetes-preserve-unknown-fields': true,
                        required: ['pciAddress'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                          altNames: {
                            type: 'array',
                            items: {
                              type: 'string',
                            },
                          },
                          pciAddress: {
                            type: 'string',
                          },
                          vendor: {
                            type: 'string',
                          },
                          deviceID: {
                            type: 'string',
                          },
                          driver: {
                            type: 'string',
                          },
                          netFilter: {
                            type: 'string',
                          },
                          linkType: {
                            type: 'string',
                          },
                          numVfs: {
                            type: 'integer',
                          },
                          totalvfs: {
                            type: 'integer',
                          },
                          Vfs: {
                            type: 'array',
                            items: {
                              type: 'object',
                              'x-kubernetes-preserve-unknown-fields': true,
                              required: ['pciAddress', 'vfID'],
                              properties: {
                                name: {
                                  type: 'string',
                                },
                                pciAddress: {
                                  type: 'string',
                                },
                                vfID: {
                                  type: 'integer',
                                },
                                vendor: {
                                  type: 'string',
                                },
                                deviceID: {
                                  type: 'string',
                                },
                                driver: {
                                  type: 'string',
                                },
                              },
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: 'sriovnetworks.sriovnetwork.openshift.io',
    },
    spec: {
      group: 'sriovnetwork.openshift.io',
      scope: 'Namespaced',
      names: {
        plural: 'sriovnetworks',
        singular: 'sriovnetwork',
        kind: 'SriovNetwork',
        listKind: 'SriovNetworkList',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: {
            status: {},
          },
          additionalPrinterColumns: [
            {
              name: 'Ready',
              type: 'string',
              jsonPath: '.status.conditions[?(@.type=="Ready")].status',
            },
            {
              name: 'Reason',
              type: 'string',
              description: 'Reason of the Ready condition, e.g. NetworkReady or NetworkAttachmentDefinitionNotFound.',
              jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
            },
            {
              name: 'Age',
              type: 'date',
              jsonPath: '.metadata.creationTimestamp',
            },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: {
                  type: 'string',
                },
                kind: {
                  type: 'string',
                },
                metadata: {
                  type: 'object',
                },
                spec: {
                  type: 'object',
                  required: ['resourceName'],
                  properties: {
                    networkNamespace: {
                      type: 'string',
                    },
                    resourceName: {
                      type: 'string',
                    },
                    capabilities: {
                      type: 'string',
                    },
                    ipam: {
                      type: 'string',
                    },
                    vlan: {
                      type: 'integer',
                      minimum: 0,
                      maximum: 4094,
                    },
                    vlanQoS: {
                      type: 'integer',
                      minimum: 0,
                      maximum: 7,
                    },
                    vlanProto: {
                      type: 'string',
                      enum: ['802.1q', '802.1Q', '802.1ad', '802.1AD'],
                    },
                    spoofChk: {
                      type: 'string',
                      enum: ['on', 'off'],
                    },
                    trust: {
                      type: 'string',
                      enum: ['on', 'off'],
                    },
                    linkState: {
                      type: 'string',
                      enum: ['auto', 'enable', 'disable'],
                    },
                    minTxRate: {
                      type: 'integer',
                      minimum: 0,
                    },
                    maxTxRate: {
                      type: 'integer',
                      minimum: 0,
                    },
                    metaPlugins: {
                      type: 'string',
                    },
                    logLevel: {
                      type: 'string',
                      enum: ['panic', 'error', 'warning', 'info', 'debug', ''],
                      default: 'info',
                    },
                    logFile: {
                      type: 'string',
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items: {
                        type: 'object',
                        required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                        properties: {
                          type: {
                            type: 'string',
                            maxLength: 316,
                            pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
                          },
                          status: {
                            type: 'string',
                            enum: ['True', 'False', 'Unknown'],
                          },
                          observedGeneration: {
                            type: 'integer',
                            format: 'int64',
                            minimum: 0,
                          },
                          lastTransitionTime: {
                            type: 'string',
                            format: 'date-time',
                          },
                          reason: {
                            type: 'string',
                            maxLength: 1024,
                            minLength: 1,
                            pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
                          },
                          message: {
                            type: 'string',
                            maxLength: 32768,
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  },
];
