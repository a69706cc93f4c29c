package main

import (
	"encoding/json"
	"errors"

	cniutils "github.com/containernetworking/cni/pkg/utils"
	"gopkg.in/k8snetworkplumbingwg/multus-cni.v4/pkg/k8sclient"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

const networksAnnotation = "k8s.v1.cni.cncf.io/networks"

// selection is one NetworkSelectionElement as Multus parsed it, field by field.
type selection struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Interface is the effective InterfaceRequest (after Multus's interfaceRequest fallback).
	Interface      string          `json:"interface"`
	Mac            string          `json:"mac"`
	IPs            []string        `json:"ips"`
	InfinibandGUID string          `json:"infinibandGuid"`
	DeviceID       string          `json:"deviceID"`
	CNIArgs        json.RawMessage `json:"cniArgs,omitempty"`
	DefaultRoute   []string        `json:"defaultRoute"`
	PortMappings   json.RawMessage `json:"portMappings,omitempty"`
	Bandwidth      json.RawMessage `json:"bandwidth,omitempty"`
	// FailsLater lists why Multus, having parsed this element, would still fail the ADD: no NAD can
	// carry such a name or namespace (the API server validates both), or libcni refuses the interface
	// name. Empty when nothing later rejects it.
	FailsLater []string `json:"failsLater"`
}

type selectionOutcome struct {
	// NoNetworks: Multus found no networks annotation (an empty value counts as none).
	NoNetworks bool        `json:"noNetworks"`
	Networks   []selection `json:"networks"`
}

// decodeSelections parses a networks annotation with Multus's exported entry point, on a Pod in
// podNamespace carrying the text as its annotation.
func decodeSelections(text, podNamespace string) (*selectionOutcome, string, error) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name:        "peer",
		Namespace:   podNamespace,
		Annotations: map[string]string{networksAnnotation: text},
	}}
	elements, err := k8sclient.GetPodNetwork(pod)
	if err != nil {
		// Multus's caller treats this one error as "no secondary networks", not as a failure.
		var none *k8sclient.NoK8sNetworkError
		if errors.As(err, &none) {
			return &selectionOutcome{NoNetworks: true, Networks: []selection{}}, "", nil
		}
		return nil, "multus-parse", err
	}
	out := &selectionOutcome{Networks: make([]selection, 0, len(elements))}
	for _, element := range elements {
		s := selection{
			Name:           element.Name,
			Namespace:      element.Namespace,
			Interface:      element.InterfaceRequest,
			Mac:            element.MacRequest,
			IPs:            element.IPRequest,
			InfinibandGUID: element.InfinibandGUIDRequest,
			DeviceID:       element.DeviceID,
			FailsLater:     []string{},
		}
		if element.CNIArgs != nil {
			s.CNIArgs, _ = json.Marshal(element.CNIArgs)
		}
		if element.GatewayRequest != nil {
			s.DefaultRoute = []string{}
			for _, ip := range *element.GatewayRequest {
				s.DefaultRoute = append(s.DefaultRoute, ip.String())
			}
		}
		if element.PortMappingsRequest != nil {
			s.PortMappings, _ = json.Marshal(element.PortMappingsRequest)
		}
		if element.BandwidthRequest != nil {
			s.Bandwidth, _ = json.Marshal(element.BandwidthRequest)
		}
		if s.Name == "" {
			s.FailsLater = append(s.FailsLater, "empty name: the NAD GET is refused")
		} else if problems := validation.IsDNS1123Subdomain(s.Name); len(problems) > 0 {
			s.FailsLater = append(s.FailsLater, "name is no valid object name, so no such NAD exists")
		}
		if problems := validation.IsDNS1123Label(s.Namespace); len(problems) > 0 {
			s.FailsLater = append(s.FailsLater, "namespace is no valid namespace name, so no such NAD exists")
		}
		if s.Interface != "" {
			if err := cniutils.ValidateInterfaceName(s.Interface); err != nil {
				s.FailsLater = append(s.FailsLater, "libcni refuses the interface name: "+err.Error())
			}
		}
		out.Networks = append(out.Networks, s)
	}
	return out, "", nil
}
