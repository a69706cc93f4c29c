// Command pod-resources serves the kubelet's PodResources API (v1) on a unix socket with the kubelet's
// own server code (k8s.io/kubernetes v1.36.3 pkg/kubelet/apis/podresources, behind the kubelet's rate
// limiter), so the Multus daemon's resourceName lookup is tested against what a kubelet answers. What
// the server reports comes from providers fed by a JSON state file, read again on every call, so a test
// changes the node's allocations by rewriting the file. Each List or Get appends a line naming it to
// <state>.calls, so a test counts the calls a client made.
//
// Usage: pod-resources -socket PATH -state FILE. Prints "serving" on stdout once the socket listens;
// stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	apisgrpc "k8s.io/kubernetes/pkg/kubelet/apis/grpc"
	"k8s.io/kubernetes/pkg/kubelet/apis/podresources"
)

// state is the node as the test describes it: Pods, each container's device-plugin devices and DRA claims.
type state struct {
	Pods []statePod `json:"pods"`
}

type statePod struct {
	Name       string           `json:"name"`
	Namespace  string           `json:"namespace"`
	UID        string           `json:"uid"`
	Containers []stateContainer `json:"containers"`
}

type stateContainer struct {
	Name             string         `json:"name"`
	Devices          []stateDevices `json:"devices"`
	DynamicResources []stateClaim   `json:"dynamicResources"`
}

type stateDevices struct {
	ResourceName string   `json:"resourceName"`
	DeviceIDs    []string `json:"deviceIds"`
}

type stateClaim struct {
	ClaimName      string               `json:"claimName"`
	ClaimNamespace string               `json:"claimNamespace"`
	ClaimResources []stateClaimResource `json:"claimResources"`
}

type stateClaimResource struct {
	CDIDevices []string `json:"cdiDevices"`
	DriverName string   `json:"driverName"`
	PoolName   string   `json:"poolName"`
	DeviceName string   `json:"deviceName"`
}

// providers answers the kubelet server's provider calls from the state file. List asks for the Pods
// first, which reads the file; the per-container calls of the same List use what that read found.
type providers struct {
	path    string
	mu      sync.Mutex
	current state
}

func (p *providers) load(call string) []*v1.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	if log, err := os.OpenFile(p.path+".calls", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(log, call)
		log.Close()
	}
	var next state
	data, err := os.ReadFile(p.path)
	if err == nil {
		err = json.Unmarshal(data, &next)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pod-resources: reading %s: %v\n", p.path, err)
		next = state{}
	}
	p.current = next
	pods := make([]*v1.Pod, 0, len(next.Pods))
	for _, sp := range next.Pods {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: sp.Name, Namespace: sp.Namespace, UID: types.UID(sp.UID)}}
		for _, c := range sp.Containers {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: c.Name})
		}
		pods = append(pods, pod)
	}
	return pods
}

func (p *providers) container(podUID, name string) *stateContainer {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.current.Pods {
		if p.current.Pods[i].UID != podUID {
			continue
		}
		for j := range p.current.Pods[i].Containers {
			if p.current.Pods[i].Containers[j].Name == name {
				return &p.current.Pods[i].Containers[j]
			}
		}
	}
	return nil
}

// The server asks for the active Pods (or all Pods, by feature gate) once per List, and by name once per Get.
func (p *providers) GetActivePods() []*v1.Pod { return p.load("List") }
func (p *providers) GetPods() []*v1.Pod       { return p.load("List") }
func (p *providers) GetPodByName(namespace, name string) (*v1.Pod, bool) {
	for _, pod := range p.load("Get") {
		if pod.Namespace == namespace && pod.Name == name {
			return pod, true
		}
	}
	return nil, false
}

func (p *providers) UpdateAllocatedDevices() {}
func (p *providers) GetDevices(podUID, containerName string) []*podresourcesapi.ContainerDevices {
	c := p.container(podUID, containerName)
	if c == nil {
		return nil
	}
	var out []*podresourcesapi.ContainerDevices
	for _, d := range c.Devices {
		out = append(out, &podresourcesapi.ContainerDevices{ResourceName: d.ResourceName, DeviceIds: d.DeviceIDs})
	}
	return out
}
func (p *providers) GetAllocatableDevices() []*podresourcesapi.ContainerDevices { return nil }
func (p *providers) GetCPUs(string, string) []int64                             { return nil }
func (p *providers) GetAllocatableCPUs() []int64                                { return nil }
func (p *providers) GetMemory(string, string) []*podresourcesapi.ContainerMemory {
	return nil
}
func (p *providers) GetAllocatableMemory() []*podresourcesapi.ContainerMemory { return nil }
func (p *providers) GetDynamicResources(pod *v1.Pod, container *v1.Container) []*podresourcesapi.DynamicResource {
	c := p.container(string(pod.UID), container.Name)
	if c == nil {
		return nil
	}
	var out []*podresourcesapi.DynamicResource
	for _, claim := range c.DynamicResources {
		resource := &podresourcesapi.DynamicResource{ClaimName: claim.ClaimName, ClaimNamespace: claim.ClaimNamespace}
		for _, r := range claim.ClaimResources {
			cr := &podresourcesapi.ClaimResource{DriverName: r.DriverName, PoolName: r.PoolName, DeviceName: r.DeviceName}
			for _, name := range r.CDIDevices {
				cr.CdiDevices = append(cr.CdiDevices, &podresourcesapi.CDIDevice{Name: name})
			}
			resource.ClaimResources = append(resource.ClaimResources, cr)
		}
		out = append(out, resource)
	}
	return out
}

func main() {
	socket := flag.String("socket", "", "unix socket to serve the PodResources API on")
	statePath := flag.String("state", "", "JSON file describing the node's Pods and their devices")
	flag.Parse()
	if *socket == "" || *statePath == "" {
		fmt.Fprintln(os.Stderr, "pod-resources: -socket and -state are required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	p := &providers{path: *statePath}
	all := podresources.PodResourcesProviders{Pods: p, Devices: p, Cpus: p, Memory: p, DynamicResources: p}
	// As the kubelet's ListenAndServePodResources, without the deprecated v1alpha1 service.
	server := grpc.NewServer(apisgrpc.WithRateLimiter(ctx, "podresources", podresources.DefaultQPS, podresources.DefaultBurstTokens))
	podresourcesapi.RegisterPodResourcesListerServer(server, podresources.NewV1PodResourcesServer(ctx, all))
	// The kubelet's listener helper likewise removes a stale socket before it listens.
	if err := os.Remove(*socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "pod-resources: removing stale %s: %v\n", *socket, err)
		os.Exit(1)
	}
	listener, err := net.Listen("unix", *socket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pod-resources: listening on %s: %v\n", *socket, err)
		os.Exit(1)
	}
	go func() {
		<-ctx.Done()
		server.Stop()
	}()
	fmt.Println("serving")
	if err := server.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "pod-resources: serving: %v\n", err)
		os.Exit(1)
	}
}
