// Builds a snapshot from Go values (a spot-only arm64 NodePool and three web pods), asks karp
// where they go on the embedded AWS catalog, and prints the launch decisions.
//
//	go run ./example   (from bindings/go, with CGO_LDFLAGS pointing at libkarp_c; see docs/bindings.md)
package main

import (
	"context"
	"fmt"
	"os"

	"karp"
)

func main() {
	snapshot := karp.Snapshot{
		NodePools: []karp.NodePool{{
			Name: "default",
			Requirements: []karp.Requirement{
				{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"spot"}},
				{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}},
			},
			Limits: map[string]string{"cpu": "100"},
		}},
	}
	for i := 0; i < 3; i++ {
		snapshot.Pods = append(snapshot.Pods, karp.Pod{
			Name:     fmt.Sprintf("web-%d", i),
			Labels:   map[string]string{"app": "web"},
			Requests: map[string]string{"cpu": "1500m", "memory": "2Gi"},
		})
	}
	snapshot.Pods = append(snapshot.Pods, karp.Pod{
		Name:         "gpu-job",
		Requests:     map[string]string{"cpu": "1", "nvidia.com/gpu": "1"},
		NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"},
	})
	data, err := snapshot.JSON()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	result, err := karp.Solve(context.Background(), data, nil, &karp.SolveOptions{Region: "us-east-1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, nc := range result.NodeClaims {
		fmt.Printf("%s: %d pods on %s (%s, %s, $%g/h), %d instance types allowed\n", nc.Name,
			len(nc.Pods), nc.Launch.InstanceType, nc.Launch.CapacityType, nc.Launch.Zone,
			nc.Launch.Price, len(nc.InstanceTypes))
	}
	for _, e := range result.PodErrors {
		fmt.Printf("%s: %s\n", e.Pod, e.Message)
	}
	fmt.Printf("%d of %d pods scheduled, $%g/h\n", result.Summary.Scheduled, result.Summary.Pods,
		result.Summary.LaunchPricePerHour)
}
