package karp

import (
	"fmt"
	"time"
)

// SolveOptions are the options of Solve, with the names of the `karp solve` flags
// (docs/bindings.md). Zero values mean the defaults.
type SolveOptions struct {
	// Output of SolveRaw: "json" (default), "yaml" or "nodeclaims".
	Output string
	// Region and Zones of the embedded AWS catalog (default us-east-1, zones a-c).
	Region string
	Zones  []string
	// PreferencePolicy "Respect" (default) or "Ignore"; MinValuesPolicy "Strict" (default) or
	// "BestEffort"; MaxInstanceTypes per NodeClaim (default 600).
	PreferencePolicy string
	MinValuesPolicy  string
	MaxInstanceTypes int
	// Packing "faithful" (default) or "cost" (Solve only: a cheaper packing under the same
	// constraints); CostAttempts (1-10), CostThreads (0: one per CPU) and CostDeadline (zero:
	// none) tune it.
	Packing      string
	CostAttempts int
	CostThreads  int
	CostDeadline time.Duration
	// Validate says what a field its kind's schema lacks is (`--validate`): "strict"
	// (default: an error naming the path and the nearest known field), "warn" (listed in
	// SolveSummary.Warnings) or "ignore".
	Validate string
	// SchedulerConfig is the document of `--scheduler-config` (kube-scheduler's
	// podTopologySpread.defaultConstraints, docs/design.md §5.12); empty: none.
	SchedulerConfig string
	// IgnoreNodeOverlays leaves the input's NodeOverlays out (`--feature-gates
	// NodeOverlay=false`); by default they are applied.
	IgnoreNodeOverlays bool
}

// ConsolidateOptions are the options of Consolidate (`karp consolidate` flags).
type ConsolidateOptions struct {
	SolveOptions
	// Now is the clock for consolidateAfter, expireAfter and budget schedules (zero: the
	// current time; set it for reproducible results).
	Now time.Time
	// Once keeps only the first loop's command; SpotToSpot enables SpotToSpotConsolidation;
	// LegacyOrder orders candidates by disruption cost (before Karpenter v1.14); Repack selects
	// the re-pack mode (`--repack`, docs/repack.md: the summary then has the Repack fields).
	Once, SpotToSpot, LegacyOrder, Repack bool
}

// CatalogOptions select the embedded AWS catalog's region and zones.
type CatalogOptions struct {
	Region string
	Zones  []string
}

// wireOptions is the options object of the C API.
type wireOptions struct {
	Output           string   `json:"output,omitempty"`
	Region           string   `json:"region,omitempty"`
	Zones            []string `json:"zones,omitempty"`
	PreferencePolicy string   `json:"preferencePolicy,omitempty"`
	MinValuesPolicy  string   `json:"minValuesPolicy,omitempty"`
	MaxInstanceTypes int      `json:"maxInstanceTypes,omitempty"`
	Packing          string   `json:"packing,omitempty"`
	CostAttempts     int      `json:"costAttempts,omitempty"`
	CostThreads      int      `json:"costThreads,omitempty"`
	CostDeadline     string   `json:"costDeadline,omitempty"`
	Now              string   `json:"now,omitempty"`
	Once             bool     `json:"once,omitempty"`
	SpotToSpot       bool     `json:"spotToSpot,omitempty"`
	LegacyOrder      bool     `json:"legacyOrder,omitempty"`
	Repack           bool     `json:"repack,omitempty"`
	Validate         string   `json:"validate,omitempty"`
	SchedulerConfig  string   `json:"schedulerConfig,omitempty"`
	NodeOverlays     *bool    `json:"nodeOverlays,omitempty"`
}

func (o *SolveOptions) wire() wireOptions {
	if o == nil {
		return wireOptions{}
	}
	w := wireOptions{Output: o.Output, Region: o.Region, Zones: o.Zones,
		PreferencePolicy: o.PreferencePolicy, MinValuesPolicy: o.MinValuesPolicy,
		MaxInstanceTypes: o.MaxInstanceTypes, Packing: o.Packing,
		CostAttempts: o.CostAttempts, CostThreads: o.CostThreads, Validate: o.Validate,
		SchedulerConfig: o.SchedulerConfig}
	if o.IgnoreNodeOverlays {
		off := false
		w.NodeOverlays = &off
	}
	if o.CostDeadline > 0 {
		w.CostDeadline = fmt.Sprintf("%dms", o.CostDeadline.Milliseconds())
	}
	return w
}

func (o *ConsolidateOptions) wire() wireOptions {
	if o == nil {
		return wireOptions{}
	}
	w := o.SolveOptions.wire()
	if !o.Now.IsZero() {
		w.Now = o.Now.UTC().Format(time.RFC3339Nano)
	}
	w.Once, w.SpotToSpot, w.LegacyOrder, w.Repack = o.Once, o.SpotToSpot, o.LegacyOrder, o.Repack
	return w
}

func (o *CatalogOptions) wire() wireOptions {
	if o == nil {
		return wireOptions{}
	}
	return wireOptions{Region: o.Region, Zones: o.Zones}
}

// SolveResult is `karp solve -o json` (docs/formats.md §3).
type SolveResult struct {
	NodeClaims    []NodeClaim    `json:"nodeClaims"`
	ExistingNodes []ExistingNode `json:"existingNodes"`
	PodErrors     []PodError     `json:"podErrors"`
	Summary       SolveSummary   `json:"summary"`
	// Raw is the result exactly as `karp solve -o json` prints it.
	Raw []byte `json:"-"`
}

// NodeClaim is a new node to launch: its NodePool, the instance types it may be, its pods
// (namespace/name) and the offering karp would launch.
type NodeClaim struct {
	Name          string            `json:"name"`
	NodePool      string            `json:"nodePool"`
	InstanceTypes []string          `json:"instanceTypes"`
	Requirements  []Requirement     `json:"requirements"`
	Requests      map[string]string `json:"requests"`
	Pods          []string          `json:"pods"`
	Launch        *Launch           `json:"launch,omitempty"`
}

// Requirement is a node selector requirement.
type Requirement struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues *int     `json:"minValues,omitempty"`
}

// Launch is the cheapest offering of a claim: what a cloud would start.
type Launch struct {
	InstanceType   string  `json:"instanceType"`
	Zone           string  `json:"zone"`
	CapacityType   string  `json:"capacityType"`
	Price          float64 `json:"price"`
	PriceEstimated bool    `json:"priceEstimated,omitempty"`
}

// ExistingNode is an existing node or in-flight NodeClaim that receives pods.
type ExistingNode struct {
	Name     string   `json:"name"`
	InFlight bool     `json:"inFlight,omitempty"`
	Pods     []string `json:"pods"`
}

// PodError is a pod that could not be placed, and why.
type PodError struct {
	Pod     string `json:"pod"`
	Message string `json:"message"`
}

// SolveSummary counts a solve.
type SolveSummary struct {
	Pods               int     `json:"pods"`
	Scheduled          int     `json:"scheduled"`
	NodeClaims         int     `json:"nodeClaims"`
	LaunchPricePerHour float64 `json:"launchPricePerHour"`
	// LowerBoundPerHour: no placement of these pods costs less (karp::PriceLowerBound).
	LowerBoundPerHour float64 `json:"lowerBoundPerHour,omitempty"`
	SkippedObjects    int     `json:"skippedObjects"`
	// Skipped names each skipped object (kind, name and why), when there are any.
	Skipped []string `json:"skipped,omitempty"`
	// Warnings of reading the snapshot, when there are any: unknown fields under Validate
	// "warn", fields an older-API conversion dropped.
	Warnings []string `json:"warnings,omitempty"`
	TimedOut bool     `json:"timedOut,omitempty"`
	// Packing is set in the cost packing mode.
	Packing *PackingSummary `json:"packing,omitempty"`
}

// PackingSummary says how the cost packing mode arrived at a result.
type PackingSummary struct {
	Mode                 string  `json:"mode"`
	FaithfulPricePerHour float64 `json:"faithfulPricePerHour"`
	Attempts             int     `json:"attempts"`
	FaithfulKept         bool    `json:"faithfulKept"`
	StoppedEarly         bool    `json:"stoppedEarly,omitempty"`
}

// ConsolidationPlan is `karp consolidate -o json` (docs/formats.md §4).
type ConsolidationPlan struct {
	Commands []Command          `json:"commands"`
	Kept     []KeptNode         `json:"kept"`
	Summary  ConsolidateSummary `json:"summary"`
	// Raw is the plan exactly as `karp consolidate -o json` prints it.
	Raw []byte `json:"-"`
}

// Command is one disruption: delete or replace its candidate nodes.
type Command struct {
	Decision       string      `json:"decision"` // delete or replace
	Reason         string      `json:"reason"`   // empty, underutilized, drifted, expired, interrupted
	Candidates     []string    `json:"candidates"`
	Replacements   []NodeClaim `json:"replacements"`
	SavingsPerHour float64     `json:"savingsPerHour"`
}

// KeptNode is a node no command disrupts, and why.
type KeptNode struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// ConsolidateSummary counts a plan. The fields after SavingsPerHour are set only by the
// re-pack mode (ConsolidateOptions.Repack; docs/formats.md §4.2).
type ConsolidateSummary struct {
	Nodes              int     `json:"nodes"`
	Candidates         int     `json:"candidates"`
	Commands           int     `json:"commands"`
	SavingsPerHour     float64 `json:"savingsPerHour"`
	Mode               string  `json:"mode,omitempty"` // "repack"
	PriceBeforePerHour float64 `json:"priceBeforePerHour,omitempty"`
	PriceAfterPerHour  float64 `json:"priceAfterPerHour,omitempty"`
	LowerBoundPerHour  float64 `json:"lowerBoundPerHour,omitempty"`
	Evictions          int     `json:"evictions,omitempty"`
	FaithfulPlan       bool    `json:"faithfulPlan,omitempty"`
}

// InstanceCatalog is a catalog in the format of docs/formats.md §2.
type InstanceCatalog struct {
	InstanceTypes []InstanceType `json:"instanceTypes"`
	// Raw is the catalog exactly as `karp catalog -o json` prints it.
	Raw []byte `json:"-"`
}

// InstanceType is one type of a catalog.
type InstanceType struct {
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels"`
	Capacity  map[string]string `json:"capacity"`
	Offerings []Offering        `json:"offerings"`
}

// Offering is a zone and capacity type a type is sold in, at a price per hour.
type Offering struct {
	Zone           string  `json:"zone"`
	CapacityType   string  `json:"capacityType"`
	Price          float64 `json:"price"`
	Available      *bool   `json:"available,omitempty"`
	PriceEstimated bool    `json:"priceEstimated,omitempty"`
}
