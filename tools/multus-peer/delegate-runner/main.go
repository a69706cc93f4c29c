// Command delegate-runner runs CNI delegates through libcni exactly as the upstream Multus daemon's
// delegate ADD and DEL do (confAdd/conflistAdd, confDel/conflistDel: NewCNIConfigWithCacheDir with
// libcni's default executor, ConfFromBytes or NetworkConfFromBytes), and reports how long libcni took.
// It is the Go half of a benchmark baseline: the time the upstream daemon spends in its delegates, measured
// with its own exec machinery rather than ours.
//
// Protocol: one JSON request per line on stdin, one JSON response per line on stdout, in order; one
// process serves them all, so its own start-up is never timed.
//
//	{"command":"ADD","containerID":"c1","netns":"/run/netns/x","args":[["K8S_POD_NAME","p"]],
//	 "binDirs":["/opt/cni/bin"],"cacheDir":"/var/lib/cni","delegates":[{"config":"{...}","ifName":"eth0"}]}
//
// ADD runs the delegates in order and stops at the first failure; DEL runs them in reverse and continues
// past failures, as Multus does. elapsedMs covers the libcni calls only.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/containernetworking/cni/libcni"
)

type delegate struct {
	Config string `json:"config"`
	IfName string `json:"ifName"`
}

type request struct {
	Command     string      `json:"command"`
	ContainerID string      `json:"containerID"`
	Netns       string      `json:"netns"`
	Args        [][2]string `json:"args"`
	BinDirs     []string    `json:"binDirs"`
	CacheDir    string      `json:"cacheDir"`
	Delegates   []delegate  `json:"delegates"`
}

type response struct {
	ElapsedMs float64 `json:"elapsedMs"`
	Error     string  `json:"error,omitempty"`
}

// isConfList follows Multus's LoadDelegateNetConf: a configuration with a "plugins" key is a list.
func isConfList(config []byte) bool {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(config, &probe); err != nil {
		return false
	}
	_, ok := probe["plugins"]
	return ok
}

func runOne(cni *libcni.CNIConfig, command string, config []byte, rt *libcni.RuntimeConf) error {
	ctx := context.Background()
	if isConfList(config) {
		list, err := libcni.NetworkConfFromBytes(config)
		if err != nil {
			return err
		}
		if command == "ADD" {
			_, err = cni.AddNetworkList(ctx, list, rt)
			return err
		}
		return cni.DelNetworkList(ctx, list, rt)
	}
	conf, err := libcni.ConfFromBytes(config)
	if err != nil {
		return err
	}
	if command == "ADD" {
		_, err = cni.AddNetwork(ctx, conf, rt)
		return err
	}
	return cni.DelNetwork(ctx, conf, rt)
}

func serve(line []byte) response {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: fmt.Sprintf("malformed request: %v", err)}
	}
	if req.Command != "ADD" && req.Command != "DEL" {
		return response{Error: fmt.Sprintf("unsupported command %q (ADD or DEL)", req.Command)}
	}
	// Multus builds one CNIConfig per delegate call; so does this, inside the timing.
	order := req.Delegates
	if req.Command == "DEL" {
		order = make([]delegate, len(req.Delegates))
		for i, d := range req.Delegates {
			order[len(req.Delegates)-1-i] = d
		}
	}
	var errs []error
	started := time.Now()
	for _, d := range order {
		cni := libcni.NewCNIConfigWithCacheDir(req.BinDirs, req.CacheDir, nil)
		rt := &libcni.RuntimeConf{ContainerID: req.ContainerID, NetNS: req.Netns, IfName: d.IfName, Args: req.Args, CacheDir: req.CacheDir}
		if err := runOne(cni, req.Command, []byte(d.Config), rt); err != nil {
			errs = append(errs, fmt.Errorf("%s on %s: %w", req.Command, d.IfName, err))
			if req.Command == "ADD" {
				break
			}
		}
	}
	elapsed := time.Since(started)
	resp := response{ElapsedMs: float64(elapsed.Nanoseconds()) / 1e6}
	if err := errors.Join(errs...); err != nil {
		resp.Error = err.Error()
	}
	return resp
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	encoder := json.NewEncoder(os.Stdout)
	for {
		line, readErr := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := encoder.Encode(serve(line)); err != nil {
				fmt.Fprintf(os.Stderr, "delegate-runner: writing a response: %v\n", err)
				os.Exit(1)
			}
		}
		if readErr == io.EOF {
			return
		}
		if readErr != nil {
			fmt.Fprintf(os.Stderr, "delegate-runner: reading requests: %v\n", readErr)
			os.Exit(1)
		}
	}
}
