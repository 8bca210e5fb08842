package karp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The repository root (KARP_SOURCE_DIR, or two levels up from this package).
func sourceDir() string {
	if d := os.Getenv("KARP_SOURCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..")
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cli runs the karp CLI named by KARP_CLI (set by ctest); the test is skipped without it.
func cli(t *testing.T, args ...string) []byte {
	t.Helper()
	karp := os.Getenv("KARP_CLI")
	if karp == "" {
		t.Skip("KARP_CLI is not set (ctest sets it to build/tools/karp): no CLI to compare with")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(karp, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("karp %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s: binding output (%d bytes) differs from the CLI's (%d bytes)\nbinding: %.300s\ncli:     %.300s",
			what, len(got), len(want), got, want)
	}
}

func TestSolveInflateSameBytesAsCLI(t *testing.T) {
	path := filepath.Join(sourceDir(), "examples", "inflate.yaml")
	snapshot := readFile(t, path)
	result, err := Solve(context.Background(), snapshot, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "solve -o json", result.Raw, cli(t, "solve", "-f", path))
	if len(result.NodeClaims) != 1 || len(result.NodeClaims[0].Pods) != 5 {
		t.Fatalf("want one claim with the 5 pods, got %+v", result.NodeClaims)
	}
	launch := result.NodeClaims[0].Launch
	if launch == nil || launch.CapacityType != "spot" || launch.Price <= 0 || !launch.PriceEstimated {
		t.Errorf("want an estimated spot launch, got %+v", launch)
	}
	if result.Summary.Scheduled != 5 || result.Summary.Pods != 5 || len(result.PodErrors) != 0 {
		t.Errorf("summary %+v, errors %+v", result.Summary, result.PodErrors)
	}
	cost, err := Solve(context.Background(), snapshot, nil,
		&SolveOptions{Packing: "cost", CostAttempts: 2, CostThreads: 1, CostDeadline: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "solve --packing cost", cost.Raw, cli(t, "solve", "-f", path, "--packing", "cost",
		"--cost-attempts", "2", "--cost-threads", "1", "--cost-deadline", "30s"))
	if cost.Summary.Packing == nil || cost.Summary.Packing.Mode != "cost" || cost.Summary.LowerBoundPerHour <= 0 ||
		cost.Summary.LaunchPricePerHour > result.Summary.LaunchPricePerHour {
		t.Errorf("want a cost packing no dearer than the faithful one, with a lower bound: %+v", cost.Summary)
	}
	for _, output := range []string{"yaml", "nodeclaims"} {
		raw, err := SolveRaw(context.Background(), []Input{{Source: path, Data: snapshot}}, nil,
			&SolveOptions{Output: output, Region: "us-gov-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, "solve -o "+output, raw, cli(t, "solve", "-f", path, "-o", output, "--region", "us-gov-west-1"))
	}
}

// The scenario of tests/bindings/testdata: its own catalog, a spread, and unschedulable pods.
func TestScenarioSameBytesAsCLI(t *testing.T) {
	var scenario struct {
		Objects []json.RawMessage `json:"objects"`
		Catalog json.RawMessage   `json:"catalog"`
	}
	path := filepath.Join(sourceDir(), "tests", "bindings", "testdata", "zone-spread-scenario.json")
	if err := json.Unmarshal(readFile(t, path), &scenario); err != nil {
		t.Fatal(err)
	}
	objects, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": scenario.Objects})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	objectsPath, catalogPath := filepath.Join(dir, "objects.json"), filepath.Join(dir, "catalog.json")
	os.WriteFile(objectsPath, objects, 0o644)
	os.WriteFile(catalogPath, scenario.Catalog, 0o644)

	result, err := Solve(context.Background(), objects, scenario.Catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "scenario solve", result.Raw, cli(t, "solve", "-f", objectsPath, "--catalog", catalogPath))
	failed := map[string]string{}
	for _, e := range result.PodErrors {
		failed[e.Pod] = e.Message
	}
	if len(failed) != 2 || !strings.Contains(failed["shop/arm-job"], "incompatible") || failed["shop/huge"] == "" {
		t.Errorf("want shop/arm-job (incompatible) and shop/huge unschedulable, got %v", failed)
	}
	zones := map[string]int{}
	for _, nc := range result.NodeClaims {
		for _, p := range nc.Pods {
			if strings.HasPrefix(p, "shop/web-") {
				zones[nc.Launch.Zone]++
			}
		}
	}
	if zones["zone-a"] != 2 || zones["zone-b"] != 2 {
		t.Errorf("want the web pods spread 2/2 over the zones, got %v", zones)
	}
	catalog, err := Catalog(context.Background(), scenario.Catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "scenario catalog", catalog.Raw, cli(t, "catalog", "--catalog", catalogPath, "-o", "json"))
	if len(catalog.InstanceTypes) != 4 || catalog.InstanceTypes[0].Name != "arm.medium" {
		t.Errorf("want the 4 types in name order, got %+v", catalog.InstanceTypes)
	}
}

func TestConsolidateSameBytesAsCLI(t *testing.T) {
	path := filepath.Join(sourceDir(), "examples", "consolidate_cluster.yaml")
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	plan, err := Consolidate(context.Background(), readFile(t, path), nil, &ConsolidateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "consolidate", plan.Raw, cli(t, "consolidate", "-f", path, "--now", "2026-01-05T12:00:00Z"))
	if len(plan.Commands) == 0 || plan.Summary.Nodes != 6 || len(plan.Kept) == 0 {
		t.Errorf("want commands over 6 nodes and kept nodes, got %+v", plan)
	}
	// A replacement, as NodeClaims too.
	path = filepath.Join(sourceDir(), "tests", "bindings", "testdata", "replace-cluster.yaml")
	plan, err = Consolidate(context.Background(), readFile(t, path), nil, &ConsolidateOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Commands) != 1 || plan.Commands[0].Decision != "replace" || len(plan.Commands[0].Replacements) != 1 ||
		plan.Commands[0].SavingsPerHour <= 0 {
		t.Errorf("want one replace command saving money, got %+v", plan.Commands)
	}
	raw, err := ConsolidateRaw(context.Background(), []Input{{Source: path, Data: readFile(t, path)}}, nil,
		&ConsolidateOptions{Now: now, SolveOptions: SolveOptions{Output: "nodeclaims"}})
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "consolidate -o nodeclaims", raw,
		cli(t, "consolidate", "-f", path, "--now", "2026-01-05T12:00:00Z", "-o", "nodeclaims"))
	if !bytes.Contains(raw, []byte(`"kind": "NodeClaim"`)) {
		t.Errorf("want the replacement as a NodeClaim, got %s", raw)
	}
}

func TestConsolidateRepack(t *testing.T) {
	path := filepath.Join(sourceDir(), "examples", "consolidate_cluster.yaml")
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	plan, err := Consolidate(context.Background(), readFile(t, path), nil, &ConsolidateOptions{Now: now, Repack: true})
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "consolidate --repack", plan.Raw,
		cli(t, "consolidate", "-f", path, "--now", "2026-01-05T12:00:00Z", "--repack"))
	s := plan.Summary
	if s.Mode != "repack" || s.PriceBeforePerHour <= 0 || s.PriceAfterPerHour > s.PriceBeforePerHour ||
		s.LowerBoundPerHour > s.PriceAfterPerHour {
		t.Errorf("want a re-pack summary with bound <= after <= before, got %+v", s)
	}
}

func TestErrors(t *testing.T) {
	_, err := Solve(context.Background(), []byte(`{"kind": "Pod"`), nil, nil)
	var kerr *Error
	if !errors.As(err, &kerr) || kerr.Code != InvalidArgument || !strings.HasPrefix(kerr.Message, "snapshot: ") {
		t.Fatalf("want an InvalidArgument error naming the snapshot, got %v", err)
	}
	if !errors.Is(err, &Error{Code: InvalidArgument}) || errors.Is(err, &Error{Code: Internal}) {
		t.Errorf("errors.Is by code fails for %v", err)
	}
	if kerr.Code.String() != "INVALID_ARGUMENT" {
		t.Errorf("code name %q", kerr.Code.String())
	}
	inflate := readFile(t, filepath.Join(sourceDir(), "examples", "inflate.yaml"))
	_, err = Solve(context.Background(), inflate, nil, &SolveOptions{PreferencePolicy: "Sometimes"})
	if err == nil || !strings.Contains(err.Error(), "options: preferencePolicy: must be one of Respect, Ignore") {
		t.Errorf("want an error naming the option, got %v", err)
	}
	_, err = Catalog(context.Background(), []byte(`{"instanceTypes": [{"name": "x", "capacity": {"cpu": "lots"}}]}`), nil)
	if err == nil || !strings.Contains(err.Error(), "catalog: instanceTypes[0].capacity.cpu") {
		t.Errorf("want an error naming the catalog field, got %v", err)
	}
}

func TestValidate(t *testing.T) {
	pod := []byte(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
		"spec": {"nodeSelecter": {"team": "x"}, "containers": [{"name": "c", "image": "x"}]}}`)
	_, err := Solve(context.Background(), pod, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "spec.nodeSelecter: unknown field; did you mean nodeSelector?") {
		t.Fatalf("want the unknown field named, got %v", err)
	}
	warned, err := Solve(context.Background(), pod, nil, &SolveOptions{Validate: "warn"})
	if err != nil {
		t.Fatal(err)
	}
	want := "snapshot: spec.nodeSelecter: unknown field; did you mean nodeSelector? (ignored)"
	if len(warned.Summary.Warnings) != 1 || warned.Summary.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", warned.Summary.Warnings, want)
	}
	ignored, err := Solve(context.Background(), pod, nil, &SolveOptions{Validate: "ignore"})
	if err != nil || len(ignored.Summary.Warnings) != 0 {
		t.Errorf("ignore: %v, warnings %q", err, ignored.Summary.Warnings)
	}
}

func TestSchedulerConfigAndNodeOverlays(t *testing.T) {
	objects := []byte(`{"apiVersion": "v1", "kind": "List", "items": [
		{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
		 "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
		   "kind": "EC2NodeClass", "name": "default"}, "requirements": [
		   {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]},
		   {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]}}}},
		{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": "dear"},
		 "spec": {"requirements": [], "price": "5"}},
		{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
		 "spec": {"selector": {"app": "web"}}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"app": "web"}},
		 "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "500m"}}}]}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b", "labels": {"app": "web"}},
		 "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "500m"}}}]}}]}`)
	spread := `{"podTopologySpread": {"defaultConstraints": [{"maxSkew": 1,
		"topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}]}}`
	r, err := Solve(context.Background(), objects, nil, &SolveOptions{SchedulerConfig: spread})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.NodeClaims) != 2 || r.NodeClaims[0].Launch == nil || r.NodeClaims[0].Launch.Price != 5 {
		t.Errorf("want two claims (one per zone) at the overlay's price 5, got %+v", r.NodeClaims)
	}
	plain, err := Solve(context.Background(), objects, nil, &SolveOptions{IgnoreNodeOverlays: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.NodeClaims) != 1 || plain.NodeClaims[0].Launch.Price == 5 {
		t.Errorf("want one claim at the list price, got %+v", plain.NodeClaims)
	}
	_, err = Solve(context.Background(), objects, nil, &SolveOptions{SchedulerConfig: "{podTopologySpread: {defaultConstraints: [{maxSkew: 0, topologyKey: zone}]}}"})
	if err == nil || !strings.Contains(err.Error(), "maxSkew") {
		t.Errorf("want the bad maxSkew named, got %v", err)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, []byte("{}"), nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
}

func TestSnapshotFromGoValuesAndConcurrency(t *testing.T) {
	snapshot := Snapshot{
		NodePools: []NodePool{{Name: "default", Requirements: []Requirement{
			{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"arm64"}}}}},
		Pods: []Pod{
			{Name: "a", Requests: map[string]string{"cpu": "1", "memory": "1Gi"}},
			{Name: "b", Requests: map[string]string{"cpu": "1", "memory": "1Gi"}},
			{Name: "c", Requests: map[string]string{"cpu": "1"}, NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}},
		},
	}
	data, err := snapshot.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]*SolveResult, 4)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], _ = Solve(context.Background(), data, nil, nil)
		}(i)
	}
	wg.Wait()
	r := results[0]
	if r == nil || len(r.NodeClaims) != 1 || len(r.NodeClaims[0].Pods) != 2 ||
		len(r.PodErrors) != 1 || r.PodErrors[0].Pod != "default/c" {
		t.Fatalf("want a and b on one arm64 claim and c unschedulable, got %+v", r)
	}
	for i, other := range results {
		if other == nil || !bytes.Equal(other.Raw, r.Raw) {
			t.Errorf("concurrent solve %d differs", i)
		}
	}
	if ABIVersion() != 1 || Version() == "" {
		t.Errorf("ABI %d, version %q", ABIVersion(), Version())
	}
}
