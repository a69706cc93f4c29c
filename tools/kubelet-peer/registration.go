package main

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

type pluginInfo struct {
	Type              string   `json:"type"`
	Name              string   `json:"name"`
	Endpoint          string   `json:"endpoint"`
	SupportedVersions []string `json:"supportedVersions"`
}

// getInfo asks the registration socket for its PluginInfo with the generated registration client, the
// same call the kubelet's plugin watcher makes first.
func getInfo(ctx context.Context, socket string) (*pluginInfo, error) {
	conn, err := grpc.NewClient("unix:"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	info, err := registerapi.NewRegistrationClient(conn).GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil {
		return nil, err
	}
	return &pluginInfo{Type: info.Type, Name: info.Name, Endpoint: info.Endpoint, SupportedVersions: info.SupportedVersions}, nil
}
