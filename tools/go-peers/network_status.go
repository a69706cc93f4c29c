package main

import (
	"context"
	"errors"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	nadutils "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/utils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

type networkStatusOutcome struct {
	// Statuses is what the NAD client's GetNetworkStatus decoded, re-encoded with the client's own struct
	// tags: a key Go does not know is absent, and a key Go matched case-insensitively carries its wire name.
	Statuses []nadv1.NetworkStatus `json:"statuses"`
	// Rewritten is the annotation the NAD client's SetNetworkStatus writes for those statuses, as upstream
	// Multus would have written it.
	Rewritten string `json:"rewritten"`
}

// decodeNetworkStatus reads a network-status annotation with the NAD client's GetNetworkStatus, into the
// v1.NetworkStatus that Whereabouts' IP reconciler and other consumers of the annotation read it into.
func decodeNetworkStatus(text string) (*networkStatusOutcome, string, error) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name:        "peer",
		Namespace:   "peer",
		Annotations: map[string]string{nadv1.NetworkStatusAnnot: text},
	}}
	statuses, err := nadutils.GetNetworkStatus(pod)
	if err != nil {
		return nil, "nad-get-network-status", err
	}
	rewritten, err := rewriteNetworkStatus(pod, statuses)
	if err != nil {
		return nil, "nad-set-network-status", err
	}
	if statuses == nil {
		// GetNetworkStatus of "null" succeeds with no statuses; the answer still says "none" as a list.
		statuses = []nadv1.NetworkStatus{}
	}
	return &networkStatusOutcome{Statuses: statuses, Rewritten: rewritten}, "", nil
}

// rewriteNetworkStatus runs SetNetworkStatus against a fake clientset holding the Pod, and reads back the
// annotation it stored.
func rewriteNetworkStatus(pod *corev1.Pod, statuses []nadv1.NetworkStatus) (string, error) {
	client := fake.NewClientset(pod.DeepCopy())
	if err := nadutils.SetNetworkStatus(client, pod, statuses); err != nil {
		return "", err
	}
	stored, err := client.CoreV1().Pods(pod.Namespace).Get(context.Background(), pod.Name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	text, ok := stored.Annotations[nadv1.NetworkStatusAnnot]
	if !ok {
		return "", errors.New("SetNetworkStatus stored no annotation")
	}
	return text, nil
}
