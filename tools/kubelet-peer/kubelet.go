package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	drapbv1 "k8s.io/kubelet/pkg/apis/dra/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager/cache"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager/operationexecutor"
)

// kubelet holds the kubelet's DRA plugin manager: the object that, in a running kubelet, receives
// registrations from the plugin watcher, keeps the gRPC connection and opens the health stream.
type kubelet struct {
	manager *plugin.DRAPluginManager
	health  *healthStreams
	// Set once a registration reached the DRA handler.
	driverName string
}

func newKubelet(ctx context.Context) *kubelet {
	health := newHealthStreams()
	// No API client: the manager then skips ResourceSlice wiping, which needs a cluster.
	return &kubelet{manager: plugin.NewDRAPluginManager(ctx, nil, nil, health, time.Minute), health: health}
}

func (k *kubelet) stop() { k.manager.Stop() }

type registration struct {
	DriverName string   `json:"driverName"`
	Endpoint   string   `json:"endpoint"`
	Services   []string `json:"services"`
}

// register runs the kubelet's own registration operation (the function the plugin watcher runs for a
// new socket): GetInfo, handler lookup by type, ValidatePlugin, RegisterPlugin, NotifyRegistrationStatus.
func (k *kubelet) register(ctx context.Context, req request) (*registration, error) {
	seen := &registration{}
	handlers := map[string]cache.PluginHandler{}
	if !req.WithoutHandler {
		handlers["DRAPlugin"] = &narrowingHandler{manager: k.manager, only: req.Services, seen: seen}
	}
	generator := operationexecutor.NewOperationGenerator(record.NewFakeRecorder(16))
	run := generator.GenerateRegisterPluginFunc(ctx, req.Socket, types.UID("kubelet-peer"), handlers, cache.NewActualStateOfWorld())
	if err := run(); err != nil {
		return nil, err
	}
	k.driverName = seen.DriverName
	return seen, nil
}

// narrowingHandler passes registrations to the kubelet's DRA plugin manager. With a service list it
// hands over only those of the plugin's advertised services, which is how a test makes the kubelet
// choose v1beta1 although the plugin also offers v1.
type narrowingHandler struct {
	manager *plugin.DRAPluginManager
	only    []string
	seen    *registration
}

func (h *narrowingHandler) narrow(services []string) []string {
	if len(h.only) == 0 {
		return services
	}
	return slices.DeleteFunc(slices.Clone(services), func(s string) bool { return !slices.Contains(h.only, s) })
}

func (h *narrowingHandler) ValidatePlugin(name, endpoint string, versions []string) error {
	return h.manager.ValidatePlugin(name, endpoint, h.narrow(versions))
}

func (h *narrowingHandler) RegisterPlugin(name, endpoint string, versions []string, timeout *time.Duration) error {
	*h.seen = registration{DriverName: name, Endpoint: endpoint, Services: h.narrow(versions)}
	return h.manager.RegisterPlugin(name, endpoint, h.narrow(versions), timeout)
}

func (h *narrowingHandler) DeRegisterPlugin(name, endpoint string) {
	h.manager.DeRegisterPlugin(name, endpoint)
}

type device struct {
	RequestNames []string `json:"requestNames"`
	PoolName     string   `json:"poolName"`
	DeviceName   string   `json:"deviceName"`
	CDIDeviceIDs []string `json:"cdiDeviceIDs"`
	ShareID      *string  `json:"shareID,omitempty"`
}

type claimResult struct {
	Devices []device `json:"devices,omitempty"`
	Error   string   `json:"error"`
}

func claimsOf(claims []claim) []*drapbv1.Claim {
	out := make([]*drapbv1.Claim, 0, len(claims))
	for _, c := range claims {
		out = append(out, &drapbv1.Claim{Namespace: c.Namespace, Uid: c.UID, Name: c.Name})
	}
	return out
}

func (k *kubelet) plugin() (*plugin.DRAPlugin, error) {
	if k.driverName == "" {
		return nil, errors.New("no plugin registered yet")
	}
	return k.manager.GetPlugin(k.driverName)
}

// prepare calls NodePrepareResources through the kubelet's DRAPlugin wrapper, which speaks the chosen
// service version (v1, or v1beta1 with the kubelet's conversion) and applies its 45 s call timeout.
func (k *kubelet) prepare(ctx context.Context, claims []claim) (map[string]claimResult, error) {
	p, err := k.plugin()
	if err != nil {
		return nil, err
	}
	resp, err := p.NodePrepareResources(ctx, &drapbv1.NodePrepareResourcesRequest{Claims: claimsOf(claims)})
	if err != nil {
		return nil, err
	}
	out := map[string]claimResult{}
	for uid, r := range resp.Claims {
		if r == nil {
			return nil, fmt.Errorf("claim %s: nil entry", uid)
		}
		result := claimResult{Error: r.Error}
		for _, d := range r.Devices {
			result.Devices = append(result.Devices, device{
				RequestNames: d.RequestNames, PoolName: d.PoolName, DeviceName: d.DeviceName, CDIDeviceIDs: d.CdiDeviceIds, ShareID: d.ShareId,
			})
		}
		out[uid] = result
	}
	return out, nil
}

func (k *kubelet) unprepare(ctx context.Context, claims []claim) (map[string]claimResult, error) {
	p, err := k.plugin()
	if err != nil {
		return nil, err
	}
	resp, err := p.NodeUnprepareResources(ctx, &drapbv1.NodeUnprepareResourcesRequest{Claims: claimsOf(claims)})
	if err != nil {
		return nil, err
	}
	out := map[string]claimResult{}
	for uid, r := range resp.Claims {
		if r == nil {
			return nil, fmt.Errorf("claim %s: nil entry", uid)
		}
		out[uid] = claimResult{Error: r.Error}
	}
	return out, nil
}
