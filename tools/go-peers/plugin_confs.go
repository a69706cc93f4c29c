package main

import cnitypes "github.com/containernetworking/cni/pkg/types"

// The config structs of the plugins a rendered shadow runs, declared with the same field names, types
// and JSON tags as the plugins' own, because encoding/json decodes by exactly those: untagged fields
// match their Go name case-insensitively, typed fields reject values of another JSON type, and an
// integer field rejects 9000.0.

// sriovNetConf has the shape of sriov-cni's pkg/types NetConf (sriov-cni 1b7acc5): the CNI NetConf
// embedded next to the sriov fields.
type sriovNetConf struct {
	cnitypes.NetConf
	sriovFields
}

type sriovFields struct {
	OrigVfState   sriovVfState
	DPDKMode      bool `json:"-"`
	Master        string
	MAC           string
	MTU           *int
	Vlan          *int    `json:"vlan"`
	VlanQoS       *int    `json:"vlanQoS"`
	VlanProto     *string `json:"vlanProto"`
	DeviceID      string  `json:"deviceID"`
	VFID          int
	MinTxRate     *int   `json:"min_tx_rate"`
	MaxTxRate     *int   `json:"max_tx_rate"`
	SpoofChk      string `json:"spoofchk,omitempty"`
	Trust         string `json:"trust,omitempty"`
	LinkState     string `json:"link_state,omitempty"`
	RuntimeConfig struct {
		Mac string `json:"mac,omitempty"`
	} `json:"runtimeConfig,omitempty"`
	LogLevel string `json:"logLevel,omitempty"`
	LogFile  string `json:"logFile,omitempty"`
}

type sriovVfState struct {
	HostIFName   string
	SpoofChk     bool
	Trust        bool
	AdminMAC     string
	EffectiveMAC string
	Vlan         int
	VlanQoS      int
	VlanProto    int
	MinTxRate    int
	MaxTxRate    int
	LinkState    uint32
	MTU          int
}

// tuningConf has the shape of the tuning metaplugin's TuningConf (containernetworking/plugins v1.10.0,
// the release tools/control-plane/build-binaries.sh builds).
type tuningConf struct {
	cnitypes.NetConf
	DataDir  string            `json:"dataDir,omitempty"`
	SysCtl   map[string]string `json:"sysctl"`
	Mac      string            `json:"mac,omitempty"`
	Promisc  bool              `json:"promisc,omitempty"`
	Mtu      int               `json:"mtu,omitempty"`
	TxQLen   *int              `json:"txQLen,omitempty"`
	Allmulti *bool             `json:"allmulti,omitempty"`

	RuntimeConfig struct {
		Mac string `json:"mac,omitempty"`
	} `json:"runtimeConfig,omitempty"`
	Args *struct {
		A *tuningArgs `json:"cni"`
	} `json:"args"`
}

type tuningArgs struct {
	SysCtl   *map[string]string `json:"sysctl"`
	Mac      *string            `json:"mac,omitempty"`
	Promisc  *bool              `json:"promisc,omitempty"`
	Mtu      *int               `json:"mtu,omitempty"`
	Allmulti *bool              `json:"allmulti,omitempty"`
	TxQLen   *int               `json:"txQLen,omitempty"`
}
