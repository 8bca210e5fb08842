package karp

import "encoding/json"

// Snapshot builds a cluster snapshot from Go values: the common fields of NodePools and
// pending Pods, plus any other Kubernetes object (Objects: anything encoding/json writes as a
// Kubernetes object, e.g. a map[string]any or a client-go type). JSON writes it as the v1
// List that Solve and Consolidate read.
type Snapshot struct {
	NodePools []NodePool
	Pods      []Pod
	Objects   []any
}

// NodePool is a karpenter.sh/v1 NodePool.
type NodePool struct {
	Name         string
	Requirements []Requirement
	Taints       []Taint
	Labels       map[string]string // node labels of the template
	Limits       map[string]string // e.g. {"cpu": "1000"}
	// ConsolidationPolicy "WhenEmptyOrUnderutilized" (default) or "WhenEmpty";
	// ConsolidateAfter a Go duration such as "1m" (default "0s").
	ConsolidationPolicy string
	ConsolidateAfter    string
}

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// Pod is a pending v1 Pod with one container.
type Pod struct {
	Namespace    string // default "default"
	Name         string
	Labels       map[string]string
	Requests     map[string]string // e.g. {"cpu": "1500m", "memory": "2Gi"}
	NodeSelector map[string]string
	Tolerations  []Toleration
}

type object = map[string]any

func (p NodePool) object() object {
	template := object{
		"nodeClassRef": object{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
		"requirements": nonNil(p.Requirements),
	}
	if len(p.Taints) > 0 {
		template["taints"] = p.Taints
	}
	spec := object{"template": object{"spec": template}}
	if len(p.Labels) > 0 {
		spec["template"].(object)["metadata"] = object{"labels": p.Labels}
	}
	if len(p.Limits) > 0 {
		spec["limits"] = p.Limits
	}
	disruption := object{}
	if p.ConsolidationPolicy != "" {
		disruption["consolidationPolicy"] = p.ConsolidationPolicy
	}
	if p.ConsolidateAfter != "" {
		disruption["consolidateAfter"] = p.ConsolidateAfter
	}
	if len(disruption) > 0 {
		spec["disruption"] = disruption
	}
	return object{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": object{"name": p.Name}, "spec": spec}
}

func (p Pod) object() object {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	meta := object{"name": p.Name, "namespace": ns}
	if len(p.Labels) > 0 {
		meta["labels"] = p.Labels
	}
	spec := object{"containers": []object{{"name": "app", "image": "app",
		"resources": object{"requests": p.Requests}}}}
	if len(p.NodeSelector) > 0 {
		spec["nodeSelector"] = p.NodeSelector
	}
	if len(p.Tolerations) > 0 {
		spec["tolerations"] = p.Tolerations
	}
	return object{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
		"status": object{"phase": "Pending"}}
}

func nonNil(r []Requirement) []Requirement {
	if r == nil {
		return []Requirement{}
	}
	return r
}

// JSON writes the snapshot as a v1 List: NodePools, then Pods, then Objects.
func (s Snapshot) JSON() ([]byte, error) {
	items := []any{}
	for _, p := range s.NodePools {
		items = append(items, p.object())
	}
	for _, p := range s.Pods {
		items = append(items, p.object())
	}
	items = append(items, s.Objects...)
	return json.Marshal(object{"apiVersion": "v1", "kind": "List", "items": items})
}
