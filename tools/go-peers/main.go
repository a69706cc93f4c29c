// Command go-peers answers, for the differential tests of libs/cni-render and apps/multus-live-read-proxy,
// how the real Go code of the CNI path decodes an input: Multus v4 (NAD config loading, delegate
// construction, network-selection parsing), libcni (conf and conflist loading, the per-plugin
// configuration it hands to each plugin), encoding/json decoding each plugin's stdin into a struct shaped
// like the plugin's own, and the NAD client reading a network-status annotation.
//
// Protocol: one JSON request per line on stdin, one JSON response per line on stdout, in order. One
// process serves any number of requests, so the TypeScript side pays the start-up cost once.
//
//	{"id":1,"kind":"cni","config":"<NAD spec.config>","nadName":"rail-a-net","nadNamespace":"ai-workloads"}
//	{"id":2,"kind":"selections","text":"<k8s.v1.cni.cncf.io/networks value>","podNamespace":"ai-workloads"}
//	{"id":3,"kind":"networkStatus","text":"<k8s.v1.cni.cncf.io/network-status value>"}
//	{"id":4,"kind":"hello"}
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
)

type request struct {
	ID           int64  `json:"id"`
	Kind         string `json:"kind"`
	Config       string `json:"config"`
	NadName      string `json:"nadName"`
	NadNamespace string `json:"nadNamespace"`
	Text         string `json:"text"`
	PodNamespace string `json:"podNamespace"`
}

type response struct {
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Stage names the step of the pipeline that rejected the input.
	Stage         string                `json:"stage,omitempty"`
	CNI           *cniOutcome           `json:"cni,omitempty"`
	Selections    *selectionOutcome     `json:"selections,omitempty"`
	NetworkStatus *networkStatusOutcome `json:"networkStatus,omitempty"`
	Hello         map[string]string     `json:"hello,omitempty"`
}

func main() {
	env, err := newCNIEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-peers: %v\n", err)
		os.Exit(1)
	}
	defer env.close()

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	encoder := json.NewEncoder(out)
	// The TypeScript side compares strings byte for byte; HTML escaping would only add noise.
	encoder.SetEscapeHTML(false)
	for {
		line, readErr := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := encoder.Encode(serve(env, line)); err != nil {
				fmt.Fprintf(os.Stderr, "go-peers: writing a response: %v\n", err)
				os.Exit(1)
			}
			// Flush only when no further request is already buffered: a streaming caller gets its
			// answers in batches, an interactive one immediately.
			if in.Buffered() == 0 {
				if err := out.Flush(); err != nil {
					os.Exit(1)
				}
			}
		}
		if readErr == io.EOF {
			_ = out.Flush()
			return
		}
		if readErr != nil {
			fmt.Fprintf(os.Stderr, "go-peers: reading requests: %v\n", readErr)
			os.Exit(1)
		}
	}
}

// serve answers one request. A panic in upstream code is an answer too (the Multus daemon's HTTP server
// would turn it into a failed request), so it is reported as a rejection at stage "panic".
func serve(env *cniEnv, line []byte) (resp response) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{ID: -1, Error: fmt.Sprintf("malformed request: %v", err), Stage: "protocol"}
	}
	resp.ID = req.ID
	defer func() {
		if recovered := recover(); recovered != nil {
			resp = response{ID: req.ID, Error: fmt.Sprintf("panic: %v", recovered), Stage: "panic"}
		}
	}()
	switch req.Kind {
	case "cni":
		outcome, stage, err := env.decodeCNI(req.Config, req.NadName, req.NadNamespace)
		if err != nil {
			return response{ID: req.ID, Error: err.Error(), Stage: stage}
		}
		return response{ID: req.ID, OK: true, CNI: outcome}
	case "selections":
		outcome, stage, err := decodeSelections(req.Text, req.PodNamespace)
		if err != nil {
			return response{ID: req.ID, Error: err.Error(), Stage: stage}
		}
		return response{ID: req.ID, OK: true, Selections: outcome}
	case "networkStatus":
		outcome, stage, err := decodeNetworkStatus(req.Text)
		if err != nil {
			return response{ID: req.ID, Error: err.Error(), Stage: stage}
		}
		return response{ID: req.ID, OK: true, NetworkStatus: outcome}
	case "hello":
		return response{ID: req.ID, OK: true, Hello: buildVersions()}
	default:
		return response{ID: req.ID, Error: fmt.Sprintf("unknown request kind %q", req.Kind), Stage: "protocol"}
	}
}

// buildVersions reports the module versions compiled in, so a test can refuse a stale binary.
func buildVersions() map[string]string {
	versions := map[string]string{"go": runtime.Version(), "protocol": "1"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return versions
	}
	for _, dep := range info.Deps {
		versions[dep.Path] = dep.Version
	}
	return versions
}
