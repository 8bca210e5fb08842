// Internal header of karp::aws: aws/userdata.h
//
// EC2 user data that bootstraps a node into the cluster, per AMI family (docs/aws.md §3.6):
//   AL2           MIME multi-part: the user's parts first, then a shell script running
//                 /etc/eks/bootstrap.sh with --kubelet-extra-args '--node-labels=...
//                 --register-with-taints=... --max-pods=N ...';
//   AL2023        MIME multi-part: the user's parts (MIME parts, a NodeConfig YAML or a shell
//                 script) first, then a nodeadm NodeConfig (application/node.eks.aws) with the
//                 cluster, kubelet config (maxPods, clusterDNS, registerWithTaints, reserved
//                 resources, eviction thresholds) and the --node-labels flag;
//   Bottlerocket  TOML: the user's settings merged with karp's settings.kubernetes (cluster,
//                 max-pods, node-labels, node-taints, reserved, eviction...), which win;
//   Windows       (windows2019/2022/2025) PowerShell: `<powershell>`, the user's script (its own
//                 <powershell> tags removed), then Start-EKSBootstrap.ps1 with -EKSClusterName,
//                 -APIServerEndpoint, -Base64ClusterCA, -KubeletExtraArgs (the AL2 kubelet
//                 flags) and -DNSClusterIP, `</powershell>`;
//   Custom        the user's data unchanged.
// Node labels are the NodePool's template labels, karpenter.sh/nodepool,
// karpenter.k8s.aws/ec2nodeclass, karpenter.sh/capacity-type and (all families but Custom)
// karpenter.sh/do-not-sync-taints=true, without the kubernetes.io / k8s.io labels kubelet may
// not set on itself (node-restriction.kubernetes.io/ is kept). Taints are the NodePool's
// taints, then its startup taints, then karpenter.sh/unregistered:NoExecute.
// Output is deterministic (sorted keys, fixed MIME boundary "//").
//
// Example:
//   karp::aws::ClusterInfo cluster{"prod", "https://ABC.gr7.us-east-1.eks.amazonaws.com",
//                                  "LS0t...", "10.100.0.0/16", "10.100.0.10"};
//   karp::aws::BootstrapInput in =
//       karp::aws::MakeBootstrapInput(node_class, pool, "spot", cluster, 29);
//   absl::StatusOr<std::string> data = karp::aws::RenderUserData(in);
//   std::string for_ec2 = karp::aws::Base64Encode(*data);
//
// Thread-safety: functions are thread-safe; types are thread-compatible.

#ifndef KARP_SRC_AWS_USERDATA_H_
#define KARP_SRC_AWS_USERDATA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/aws/cluster_info.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws_catalog.h"
#include "karp/objects.h"
#include "karp/taints.h"

namespace karp::aws {

struct BootstrapInput {
  AwsAmiFamily family = AwsAmiFamily::kAl2023;
  ClusterInfo cluster;
  std::map<std::string, std::string> labels;  // filtered by RenderUserData
  std::vector<Taint> taints;                  // karpenter.sh/unregistered is added if absent
  std::optional<int64_t> max_pods;            // the resolved pods capacity of the template
  KubeletConfiguration kubelet;
  std::optional<std::string> user_data;  // spec.userData
  bool raid0 = false;                    // instanceStorePolicy RAID0
};

// The bootstrap input of a launch for `pool` with `capacity_type` ("spot", "on-demand").
BootstrapInput MakeBootstrapInput(const Ec2NodeClass& node_class, const NodePool& pool,
                                  std::string_view capacity_type, const ClusterInfo& cluster,
                                  std::optional<int64_t> max_pods);

// The labels RenderUserData writes for `labels`: restricted kubernetes.io / k8s.io keys
// removed (kubernetes.io/ and k8s.io/ and their subdomains, except node-restriction.kubernetes.io).
std::map<std::string, std::string> KubeletSettableLabels(
    const std::map<std::string, std::string>& labels);

// The user data (plain text, not base64).
// Errors: InvalidArgument naming the field (missing cluster name, endpoint or CA bundle; no
// service CIDR on AL2023; user data that is not valid for the family: a MIME document without
// a boundary, unsupported TOML).
[[nodiscard]] absl::StatusOr<std::string> RenderUserData(const BootstrapInput& input);

// Standard base64 with padding (RFC 4648 §4).
std::string Base64Encode(std::string_view data);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_USERDATA_H_
