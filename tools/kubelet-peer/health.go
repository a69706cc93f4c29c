package main

import (
	"context"
	"fmt"
	"time"

	drahealthv1alpha1 "k8s.io/kubelet/pkg/apis/dra-health/v1alpha1"
)

type deviceHealth struct {
	PoolName                  string `json:"poolName"`
	DeviceName                string `json:"deviceName"`
	Health                    string `json:"health"`
	LastUpdatedTime           int64  `json:"lastUpdatedTime"`
	HealthCheckTimeoutSeconds int64  `json:"healthCheckTimeoutSeconds"`
	Message                   string `json:"message"`
}

// healthStreams is the stream handler the kubelet's plugin manager hands each NodeWatchResources stream
// to after registration (the plugin manager opens the stream itself when ResourceHealthStatus is on,
// as it is by default in v1.36). Every message received is queued for the next health request.
type healthStreams struct {
	messages chan []deviceHealth
}

func newHealthStreams() *healthStreams {
	return &healthStreams{messages: make(chan []deviceHealth, 64)}
}

func (h *healthStreams) HandleWatchResourcesStream(ctx context.Context, stream drahealthv1alpha1.DRAResourceHealth_NodeWatchResourcesClient, _ string) error {
	for {
		resp, err := stream.Recv()
		if err != nil {
			return err
		}
		devices := []deviceHealth{}
		for _, d := range resp.Devices {
			devices = append(devices, deviceHealth{
				PoolName:                  d.GetDevice().GetPoolName(),
				DeviceName:                d.GetDevice().GetDeviceName(),
				Health:                    d.Health.String(),
				LastUpdatedTime:           d.LastUpdatedTime,
				HealthCheckTimeoutSeconds: d.HealthCheckTimeoutSeconds,
				Message:                   d.Message,
			})
		}
		select {
		case h.messages <- devices:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (h *healthStreams) next(ctx context.Context, timeout time.Duration) ([]deviceHealth, error) {
	select {
	case devices := <-h.messages:
		return devices, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("no health message within %v", timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
