// File: karp/node_class.h
//
// NodeClass: the parts of a NodePool's node class (EC2NodeClass `karpenter.k8s.aws/v1`, or an
// older AWSNodeTemplate converted to it) that change the capacity and overhead of the instance
// types the NodePool launches: kubelet settings, the AMI family, the volume that holds
// ephemeral storage and the instance-store policy (docs/aws-catalog.md, "Node classes in
// solve, consolidate and simulate"). The fields keep what the object says (quantities as
// their text, the AMI family as its name); karp/node_class_catalog.h checks them
// (ValidateNodeClass) and turns them into the settings instance types are built with
// (AwsCatalogOptionsForNodeClass). Other fields of an EC2NodeClass (selector
// terms other than an alias, role, tags, user data, metadata options...) decide nothing karp
// computes and are not kept.
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_NODE_CLASS_H_
#define KARP_NODE_CLASS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "karp/objects.h"

namespace karp {

// spec.kubelet: the settings that change capacity or overhead. Maps keep each value's text as
// written ("100Mi", "5%"), as the reference's map[string]string does.
struct NodeClassKubelet {
  // maxPods: replaces the computed pods capacity (ENI-limited, or 110 on Windows). >= 0.
  std::optional<int32_t> max_pods;
  // podsPerCore: when > 0, pods = min(pods, podsPerCore x vCPUs); ignored on Bottlerocket.
  std::optional<int32_t> pods_per_core;
  // kubeReserved and systemReserved: key (cpu, memory, ephemeral-storage, pid) -> quantity.
  // Each key replaces the computed kube-reserved default of that key; pid is not a resource
  // karp schedules and changes nothing.
  std::map<std::string, std::string> kube_reserved;
  std::map<std::string, std::string> system_reserved;
  // evictionHard: signal (memory.available, nodefs.available, nodefs.inodesFree,
  // imagefs.available, imagefs.inodesFree, pid.available) -> quantity or percentage ("5%").
  // memory.available and nodefs.available replace the default eviction thresholds.
  std::map<std::string, std::string> eviction_hard;
  // evictionSoft: the same signals. Read and checked, but it does not reduce allocatable: the
  // reference counts only evictionHard since January 2026 (aws/karpenter-provider-aws#8565).
  std::map<std::string, std::string> eviction_soft;

  friend bool operator==(const NodeClassKubelet& a, const NodeClassKubelet& b) {
    return a.max_pods == b.max_pods && a.pods_per_core == b.pods_per_core &&
           a.kube_reserved == b.kube_reserved && a.system_reserved == b.system_reserved &&
           a.eviction_hard == b.eviction_hard && a.eviction_soft == b.eviction_soft;
  }
};

// spec.blockDeviceMappings[i]: what decides which volume holds ephemeral storage, and its size.
struct NodeClassBlockDeviceMapping {
  std::string device_name;   // deviceName, e.g. "/dev/xvda"
  bool root_volume = false;  // rootVolume: the volume kubelet's root directory is on
  // ebs.volumeSize in bytes (written as a quantity such as "100Gi"); unset when absent.
  std::optional<int64_t> volume_size;

  friend bool operator==(const NodeClassBlockDeviceMapping& a,
                         const NodeClassBlockDeviceMapping& b) {
    return a.device_name == b.device_name && a.root_volume == b.root_volume &&
           a.volume_size == b.volume_size;
  }
};

struct NodeClass {
  std::string api_version;  // "karpenter.k8s.aws/v1"
  std::string kind;         // "EC2NodeClass"
  ObjectMeta metadata;      // cluster-scoped
  // spec.amiFamily as written: "AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019",
  // "Windows2022" or "Windows2025"; "" when absent.
  std::string ami_family;
  // The alias of the first spec.amiSelectorTerms entry that has one ("al2023@latest",
  // "bottlerocket@v1.20.0", "windows2022@latest"); "" when none. The family used is
  // ami_family when set, else the alias's, else Custom (the reference's AMIFamily()).
  std::string ami_alias;
  NodeClassKubelet kubelet;                                        // spec.kubelet
  std::vector<NodeClassBlockDeviceMapping> block_device_mappings;  // in spec order
  // spec.instanceStorePolicy: "" or "RAID0" (ephemeral storage on the RAID0 of the local NVMe
  // instance stores, when the type has them).
  std::string instance_store_policy;

  friend bool operator==(const NodeClass& a, const NodeClass& b) {
    return a.api_version == b.api_version && a.kind == b.kind && a.metadata == b.metadata &&
           a.ami_family == b.ami_family && a.ami_alias == b.ami_alias && a.kubelet == b.kubelet &&
           a.block_device_mappings == b.block_device_mappings &&
           a.instance_store_policy == b.instance_store_policy;
  }
};

}  // namespace karp

#endif  // KARP_NODE_CLASS_H_
