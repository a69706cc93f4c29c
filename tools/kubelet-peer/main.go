// Command kubelet-peer plays the kubelet's side of a DRA plugin's gRPC sockets with the kubelet's own
// code (k8s.io/kubernetes v1.36.3, k8s.io/kubelet v0.36.3), so the TypeScript plugin runtime is tested
// against the real client, not a re-implementation of it.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout, in order.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"google.golang.org/grpc/status"
)

type request struct {
	ID int    `json:"id"`
	Op string `json:"op"`
	// Registration socket path, for info and register.
	Socket string `json:"socket,omitempty"`
	// register: serve only these advertised services to the kubelet's handler (e.g. to force v1beta1).
	Services []string `json:"services,omitempty"`
	// register: leave the DRAPlugin handler out, so the kubelet rejects the plugin.
	WithoutHandler bool `json:"withoutHandler,omitempty"`
	// prepare and unprepare.
	Claims []claim `json:"claims,omitempty"`
	// health: how long to wait for the next stream message.
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

type claim struct {
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
	Name      string `json:"name"`
}

type answer struct {
	ID    int    `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// The gRPC status code of a failed call, when there is one.
	Code   string `json:"code,omitempty"`
	Result any    `json:"result,omitempty"`
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	peer := newKubelet(ctx)
	defer peer.stop()

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			_ = out.Encode(answer{OK: false, Error: fmt.Sprintf("bad request: %v", err)})
			continue
		}
		result, err := peer.handle(ctx, req)
		a := answer{ID: req.ID, OK: err == nil, Result: result}
		if err != nil {
			a.Error = err.Error()
			if s, ok := status.FromError(err); ok {
				a.Code = s.Code().String()
			}
		}
		if err := out.Encode(a); err != nil {
			fmt.Fprintf(os.Stderr, "kubelet-peer: writing answer: %v\n", err)
			os.Exit(1)
		}
	}
}

func (k *kubelet) handle(ctx context.Context, req request) (any, error) {
	switch req.Op {
	case "hello":
		return moduleVersions(), nil
	case "info":
		return getInfo(ctx, req.Socket)
	case "register":
		return k.register(ctx, req)
	case "prepare":
		return k.prepare(ctx, req.Claims)
	case "unprepare":
		return k.unprepare(ctx, req.Claims)
	case "health":
		timeout := time.Duration(req.TimeoutMs) * time.Millisecond
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		return k.health.next(ctx, timeout)
	default:
		return nil, fmt.Errorf("unknown op %q", req.Op)
	}
}

// moduleVersions names the upstream versions compiled in, so a test can refuse a binary built from
// other pins.
func moduleVersions() map[string]string {
	versions := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return versions
	}
	for _, m := range info.Deps {
		if m.Replace != nil {
			versions[m.Path] = m.Replace.Version
		} else {
			versions[m.Path] = m.Version
		}
	}
	return versions
}
