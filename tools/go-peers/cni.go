package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/skel"
	cnitypes "github.com/containernetworking/cni/pkg/types"
	cniutils "github.com/containernetworking/cni/pkg/utils"
	"github.com/containernetworking/cni/pkg/version"
	nettypes "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	netfake "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/client/clientset/versioned/fake"
	"gopkg.in/k8snetworkplumbingwg/multus-cni.v4/pkg/k8sclient"
	"gopkg.in/k8snetworkplumbingwg/multus-cni.v4/pkg/logging"
	multustypes "gopkg.in/k8snetworkplumbingwg/multus-cni.v4/pkg/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// binDir is never read: the recording executor below stands in for every plugin binary.
const binDir = "/go-peers/bin"

// Multus names the first secondary attachment net1 when the selection requests no interface.
const ifName = "net1"

const containerID = "0123456789abcdef0123456789abcdef"

type cniEnv struct {
	dir      string
	confDir  string
	cacheDir string
}

// newCNIEnv makes the directories Multus and libcni touch: an empty CNI configuration directory (an NAD
// without inline config makes Multus search it, and finding nothing is the answer) and libcni's result
// cache, emptied after every request.
func newCNIEnv() (*cniEnv, error) {
	dir, err := os.MkdirTemp("", "go-peers-")
	if err != nil {
		return nil, err
	}
	env := &cniEnv{dir: dir, confDir: filepath.Join(dir, "net.d"), cacheDir: filepath.Join(dir, "cache")}
	for _, sub := range []string{env.confDir, env.cacheDir} {
		if err := os.Mkdir(sub, 0o700); err != nil {
			return nil, err
		}
	}
	// Multus logs every rejection; the answers already carry the errors.
	logging.SetLogStderr(false)
	return env, nil
}

func (env *cniEnv) close() { _ = os.RemoveAll(env.dir) }

// pluginOutcome is what one executed plugin found on its stdin.
type pluginOutcome struct {
	// Type is the plugin binary libcni executed.
	Type string `json:"type"`
	// Name and CNIVersion as the plugin decodes them from its stdin.
	Name       string `json:"name"`
	CNIVersion string `json:"cniVersion"`
	// DeviceID as sriov-cni decodes it; only for sriov plugins.
	DeviceID *string `json:"deviceID,omitempty"`
	// IPAMType selects the IPAM plugin the device plugin runs (types.NetConf's ipam.type).
	IPAMType string `json:"ipamType"`
	// IPAM is the value an IPAM plugin decodes from the same stdin; absent when there is none.
	IPAM json.RawMessage `json:"ipam,omitempty"`
	// Stdin is the exact configuration libcni handed to the plugin.
	Stdin string `json:"stdin"`
}

type cniOutcome struct {
	// DelegateName is Multus's name for the delegate ("<namespace>/<nad>").
	DelegateName string `json:"delegateName"`
	// ConfList tells which path Multus took: conflist (no root type) or single plugin.
	ConfList bool `json:"confList"`
	// NetworkName and CNIVersion are libcni's view: the name it validates, caches under and injects
	// into every plugin, and the version it injects.
	NetworkName string          `json:"networkName"`
	CNIVersion  string          `json:"cniVersion"`
	Plugins     []pluginOutcome `json:"plugins"`
	// Direct is each plugin entry as written in the NAD, decoded straight into the plugin's struct:
	// what a Go reader of the stored configuration takes, before libcni's re-marshalling through a map
	// (which sorts keys and so decides which of two case variants of a key comes last).
	Direct []directPlugin `json:"direct"`
}

type directPlugin struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	CNIVersion string          `json:"cniVersion"`
	DeviceID   *string         `json:"deviceID,omitempty"`
	IPAMType   string          `json:"ipamType"`
	IPAM       json.RawMessage `json:"ipam,omitempty"`
	// Error is encoding/json's complaint, if any; the fields hold what it decoded regardless.
	Error string `json:"error,omitempty"`
}

// decodeCNI follows an NAD through the Multus daemon's ADD path up to the plugins: Multus loads the
// delegate from the NAD (GetNetworkDelegates → NAD client GetCNIConfig → LoadDelegateNetConf), builds
// the runtime configuration, and hands the delegate bytes to libcni the way its delegate ADD does; libcni
// builds each plugin's stdin; a recording executor plays the plugins, decoding their stdin into structs
// shaped like theirs. Only the network-namespace check of the interface name is left out (it needs a
// real namespace and depends on the links in it).
func (env *cniEnv) decodeCNI(config, nadName, nadNamespace string) (*cniOutcome, string, error) {
	defer os.RemoveAll(filepath.Join(env.cacheDir, "results"))

	nad := &nettypes.NetworkAttachmentDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: nadName, Namespace: nadNamespace},
		Spec:       nettypes.NetworkAttachmentDefinitionSpec{Config: config},
	}
	// Created through the client rather than seeded: the fake's object tracker would file a seeded NAD
	// under a guessed plural that the typed client never asks for.
	client := &k8sclient.ClientInfo{NetClient: netfake.NewSimpleClientset()}
	if _, err := client.AddNetAttachDef(nad); err != nil {
		return nil, "harness", err
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "peer", Namespace: nadNamespace, UID: "11111111-2222-3333-4444-555555555555"}}
	multusConf := &multustypes.NetConf{ConfDir: env.confDir, BinDir: binDir, CNIDir: env.cacheDir}
	selection := &multustypes.NetworkSelectionElement{Name: nadName, Namespace: nadNamespace}

	delegates, err := k8sclient.GetNetworkDelegates(client, pod, []*multustypes.NetworkSelectionElement{selection}, multusConf, nil)
	if err != nil {
		return nil, "multus-delegate", err
	}
	if len(delegates) != 1 {
		return nil, "multus-delegate", fmt.Errorf("expected one delegate, Multus built %d", len(delegates))
	}
	delegate := delegates[0]

	args := &skel.CmdArgs{ContainerID: containerID, Netns: "/var/run/netns/go-peers", IfName: "eth0"}
	k8sArgs := &multustypes.K8sArgs{
		K8S_POD_NAME:               cnitypes.UnmarshallableString(pod.Name),
		K8S_POD_NAMESPACE:          cnitypes.UnmarshallableString(pod.Namespace),
		K8S_POD_INFRA_CONTAINER_ID: cnitypes.UnmarshallableString(containerID),
		K8S_POD_UID:                cnitypes.UnmarshallableString(pod.UID),
	}
	rt, _ := multustypes.CreateCNIRuntimeConf(args, k8sArgs, ifName, multusConf.RuntimeConfig, delegate)

	exec := &recordingExec{}
	cniNet := libcni.NewCNIConfigWithCacheDir([]string{binDir}, multusConf.CNIDir, exec)
	outcome := &cniOutcome{DelegateName: delegate.Name, ConfList: delegate.ConfListPlugin}
	if delegate.ConfListPlugin {
		// As Multus's conflist ADD: a list it already holds, else the delegate bytes parsed again.
		list := &delegate.CNINetworkConfigList
		if len(list.Plugins) == 0 {
			if list, err = libcni.NetworkConfFromBytes(delegate.Bytes); err != nil {
				return nil, "libcni-load", err
			}
		}
		outcome.NetworkName, outcome.CNIVersion = list.Name, list.CNIVersion
		if _, err := cniNet.AddNetworkList(context.Background(), list, rt); err != nil {
			return nil, exec.stage("libcni-add"), err
		}
	} else {
		conf, err := libcni.ConfFromBytes(delegate.Bytes)
		if err != nil {
			return nil, "libcni-load", err
		}
		outcome.NetworkName, outcome.CNIVersion = conf.Network.Name, conf.Network.CNIVersion
		if _, err := cniNet.AddNetwork(context.Background(), conf, rt); err != nil {
			return nil, exec.stage("libcni-add"), err
		}
	}
	outcome.Plugins = exec.plugins
	if outcome.Plugins == nil {
		outcome.Plugins = []pluginOutcome{}
	}
	outcome.Direct = decodeDirect([]byte(config), delegate.ConfListPlugin)
	return outcome, "", nil
}

// decodeDirect decodes the plugin entries of the configuration text as written.
func decodeDirect(config []byte, confList bool) []directPlugin {
	entries := []json.RawMessage{config}
	if confList {
		var list struct {
			Plugins []json.RawMessage `json:"plugins"`
		}
		if err := json.Unmarshal(config, &list); err != nil {
			return []directPlugin{{Error: err.Error()}}
		}
		entries = list.Plugins
	}
	out := make([]directPlugin, 0, len(entries))
	for _, entry := range entries {
		var common cnitypes.NetConf
		_ = json.Unmarshal(entry, &common)
		plugin := directPlugin{Type: common.Type}
		var err error
		if common.Type == "sriov" {
			var conf sriovNetConf
			err = json.Unmarshal(entry, &conf)
			common, plugin.DeviceID = conf.NetConf, &conf.DeviceID
		} else {
			err = json.Unmarshal(entry, &common)
		}
		var ipam struct {
			IPAM json.RawMessage `json:"ipam"`
		}
		if ipamErr := json.Unmarshal(entry, &ipam); err == nil {
			err = ipamErr
		}
		plugin.Name, plugin.CNIVersion, plugin.IPAMType, plugin.IPAM = common.Name, common.CNIVersion, common.IPAM.Type, ipam.IPAM
		if err != nil {
			plugin.Error = err.Error()
		}
		out = append(out, plugin)
	}
	return out
}

// recordingExec stands in for the plugin binaries: it accepts any plugin name libcni's own lookup
// would, and "runs" a plugin by doing what its entry point does with stdin before touching the host:
// the skel checks (supported CNI version, valid network name) and decoding into its config struct.
type recordingExec struct {
	plugins []pluginOutcome
	failed  string
}

func (e *recordingExec) stage(fallback string) string {
	if e.failed != "" {
		return e.failed
	}
	return fallback
}

func (e *recordingExec) FindInPath(plugin string, paths []string) (string, error) {
	// The name checks of invoke.FindInPath; the binary itself is assumed installed.
	if plugin == "" {
		return "", errors.New("no plugin name provided")
	}
	if strings.ContainsRune(plugin, os.PathSeparator) {
		return "", fmt.Errorf("invalid plugin name: %s", plugin)
	}
	if len(paths) == 0 {
		return "", errors.New("no paths provided")
	}
	return filepath.Join(paths[0], plugin), nil
}

func (e *recordingExec) Decode(jsonBytes []byte) (version.PluginInfo, error) {
	return (&version.PluginDecoder{}).Decode(jsonBytes)
}

func (e *recordingExec) ExecPlugin(_ context.Context, pluginPath string, stdin []byte, _ []string) ([]byte, error) {
	pluginType := filepath.Base(pluginPath)
	outcome, err := decodePluginStdin(pluginType, stdin)
	if err != nil {
		e.failed = "plugin:" + pluginType
		return nil, err
	}
	e.plugins = append(e.plugins, *outcome)
	// An empty result: libcni fills in the configuration's version, as for a plugin that omits it.
	return []byte(`{}`), nil
}

func decodePluginStdin(pluginType string, stdin []byte) (*pluginOutcome, error) {
	// skel: the configuration's version must be one the plugin supports (sriov-cni, tuning and the
	// IPAM plugins all declare version.All), and its name must be a valid network name.
	configVersion, err := (&version.ConfigDecoder{}).Decode(stdin)
	if err != nil {
		return nil, err
	}
	if verErr := (&version.Reconciler{}).Check(configVersion, version.All); verErr != nil {
		return nil, fmt.Errorf("incompatible CNI versions: %s", verErr.Details())
	}
	var named struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(stdin, &named); err != nil {
		return nil, fmt.Errorf("error unmarshall network config: %v", err)
	}
	if named.Name == "" {
		return nil, errors.New("missing network name")
	}
	if err := cniutils.ValidateNetworkName(named.Name); err != nil {
		return nil, err
	}

	var common cnitypes.NetConf
	var deviceID *string
	switch pluginType {
	case "sriov":
		var conf sriovNetConf
		if err := json.Unmarshal(stdin, &conf); err != nil {
			return nil, fmt.Errorf("LoadConf(): failed to load netconf: %v", err)
		}
		common, deviceID = conf.NetConf, &conf.DeviceID
	case "tuning":
		var conf tuningConf
		if err := json.Unmarshal(stdin, &conf); err != nil {
			return nil, fmt.Errorf("failed to load netconf: %v", err)
		}
		common = conf.NetConf
	default:
		if err := json.Unmarshal(stdin, &common); err != nil {
			return nil, fmt.Errorf("failed to load netconf: %v", err)
		}
	}
	// What an IPAM plugin reads from the same stdin: the value of the key that folds to "ipam", last
	// one winning, as encoding/json matches it into the IPAM plugin's own config struct.
	var ipam struct {
		IPAM json.RawMessage `json:"ipam"`
	}
	if err := json.Unmarshal(stdin, &ipam); err != nil {
		return nil, err
	}
	return &pluginOutcome{
		Type:       pluginType,
		Name:       common.Name,
		CNIVersion: common.CNIVersion,
		DeviceID:   deviceID,
		IPAMType:   common.IPAM.Type,
		IPAM:       ipam.IPAM,
		Stdin:      string(stdin),
	}, nil
}
