// File: karp/aws/ec2nodeclass.h
//
// EC2NodeClass (karpenter.k8s.aws/v1): the cloud-specific half of a launch that a NodePool
// names through `spec.template.spec.nodeClassRef` (docs/aws.md §3). This header holds the
// value type, its parser (the same JSON/YAML input rules and `<source>: <json path>: <what>`
// errors as karp::json), its validation, and what the rest of karp derives from it without
// talking to AWS:
//   - catalog options: kubelet maxPods / podsPerCore / kubeReserved / systemReserved /
//     evictionHard, the AMI family and the ephemeral volume feed the same overhead code as the
//     embedded catalog (karp::AwsCatalogOptions, docs/aws.md §1.4-1.5);
//   - the static hash recorded on NodeClaims at launch (annotation
//     karpenter.k8s.aws/ec2nodeclass-hash) that NodeClass drift compares;
//   - the tags every instance, volume and launch template carries (§3.8).
// Discovery through EC2 (subnets, security groups, AMIs) is in karp/aws/ec2nodeclass_status.h,
// launch templates and user data are built inside the adapter (docs/aws.md §3.5-§3.6).
//
// Example:
//   absl::StatusOr<std::vector<karp::aws::Ec2NodeClass>> classes =
//       karp::aws::ReadEc2NodeClassFiles({"nodeclass.yaml"});
//   if (!classes.ok()) return classes.status();  // nodeclass.yaml: spec.tags...: restricted
//   absl::StatusOr<karp::AwsCatalogOptions> options =
//       karp::aws::CatalogOptionsFor(classes->front(), karp::AwsCatalogOptions{});
//
// Objects of other kinds in the input are skipped, so the same files can hold the NodePools
// (karp::json::ReadSnapshotFiles reads those, and of an EC2NodeClass the fields that change
// instance types: karp/node_class.h).
//
// Thread-safety: value types (thread-compatible); the functions are thread-safe.

#ifndef KARP_AWS_EC2NODECLASS_H_
#define KARP_AWS_EC2NODECLASS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/aws_catalog.h"
#include "karp/objects.h"

namespace karp::aws {

inline constexpr std::string_view kEc2NodeClassApiVersion = "karpenter.k8s.aws/v1";
inline constexpr std::string_view kEc2NodeClassGroup = "karpenter.k8s.aws";
inline constexpr std::string_view kEc2NodeClassKind = "EC2NodeClass";

// Annotations recorded on a NodeClaim at launch (and on the NodeClass by the reference).
inline constexpr std::string_view kAnnotationEc2NodeClassHash =
    "karpenter.k8s.aws/ec2nodeclass-hash";
inline constexpr std::string_view kAnnotationEc2NodeClassHashVersion =
    "karpenter.k8s.aws/ec2nodeclass-hash-version";
// karp's hash is its own (not the reference's Go structure hash), so it carries its own
// version: a NodeClaim annotated by another controller (version "v6") is never compared.
inline constexpr std::string_view kEc2NodeClassHashVersion = "karp-v1";

// Tag keys (docs/aws.md §3.8).
inline constexpr std::string_view kTagKeyNodePool = "karpenter.sh/nodepool";
inline constexpr std::string_view kTagKeyNodeClaim = "karpenter.sh/nodeclaim";
inline constexpr std::string_view kTagKeyEc2NodeClass = "karpenter.k8s.aws/ec2nodeclass";
inline constexpr std::string_view kTagKeyEksClusterName = "eks:eks-cluster-name";
inline constexpr std::string_view kTagKeyClusterPrefix = "kubernetes.io/cluster/";

// spec.subnetSelectorTerms[i]: `id` alone, or `tags` (ANDed; value "*" means "key present").
struct SubnetSelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  friend bool operator==(const SubnetSelectorTerm& a, const SubnetSelectorTerm& b) {
    return a.tags == b.tags && a.id == b.id;
  }
};

// spec.securityGroupSelectorTerms[i]: `id` alone, `name` alone, or `tags`.
struct SecurityGroupSelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
  friend bool operator==(const SecurityGroupSelectorTerm& a, const SecurityGroupSelectorTerm& b) {
    return a.tags == b.tags && a.id == b.id && a.name == b.name;
  }
};

// spec.amiSelectorTerms[i]: `alias` alone (then the only term), `id` alone, or any of
// `name` (+ `owner`), `tags`, `ssmParameter`.
struct AmiSelectorTerm {
  std::string alias;  // "al2023@latest", "bottlerocket@v1.20.0", "al2@v20240807"
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
  std::string owner;  // with `name`: "self", "amazon" or an account id; default both of those
  std::string ssm_parameter;
  friend bool operator==(const AmiSelectorTerm& a, const AmiSelectorTerm& b) {
    return a.alias == b.alias && a.tags == b.tags && a.id == b.id && a.name == b.name &&
           a.owner == b.owner && a.ssm_parameter == b.ssm_parameter;
  }
};

// A parsed `alias`: family and version ("latest" or a pinned version).
struct AmiAlias {
  AwsAmiFamily family = AwsAmiFamily::kAl2023;
  std::string version = "latest";
};

// Parses `<family>@<version>` with family al2, al2023, bottlerocket, windows2019, windows2022
// or windows2025 (Windows only `latest`). Errors: InvalidArgument naming the text.
[[nodiscard]] absl::StatusOr<AmiAlias> ParseAmiAlias(std::string_view text);

// spec.metadataOptions, with the CRD defaults.
struct MetadataOptions {
  std::string http_endpoint = "enabled";        // enabled | disabled
  std::string http_protocol_ipv6 = "disabled";  // enabled | disabled
  int32_t http_put_response_hop_limit = 1;      // 1..64
  std::string http_tokens = "required";         // required | optional
  friend bool operator==(const MetadataOptions& a, const MetadataOptions& b) {
    return a.http_endpoint == b.http_endpoint && a.http_protocol_ipv6 == b.http_protocol_ipv6 &&
           a.http_put_response_hop_limit == b.http_put_response_hop_limit &&
           a.http_tokens == b.http_tokens;
  }
};

// spec.blockDeviceMappings[i].ebs.
struct BlockDevice {
  std::optional<bool> delete_on_termination;
  std::optional<bool> encrypted;
  std::optional<int64_t> iops;
  std::optional<int64_t> throughput;
  std::string kms_key_id;
  std::string snapshot_id;
  std::string volume_type;             // standard, io1, io2, gp2, sc1, st1, gp3 or ""
  std::optional<int64_t> volume_size;  // bytes (a quantity such as "100Gi")
  friend bool operator==(const BlockDevice& a, const BlockDevice& b) {
    return a.delete_on_termination == b.delete_on_termination && a.encrypted == b.encrypted &&
           a.iops == b.iops && a.throughput == b.throughput && a.kms_key_id == b.kms_key_id &&
           a.snapshot_id == b.snapshot_id && a.volume_type == b.volume_type &&
           a.volume_size == b.volume_size;
  }
};

struct BlockDeviceMapping {
  std::string device_name;  // "/dev/xvda"
  BlockDevice ebs;
  bool root_volume = false;  // at most one mapping may set it
  friend bool operator==(const BlockDeviceMapping& a, const BlockDeviceMapping& b) {
    return a.device_name == b.device_name && a.ebs == b.ebs && a.root_volume == b.root_volume;
  }
};

// spec.kubelet. Reserved and eviction maps keep their text ("100Mi", "5%") as given, so they
// can be written into user data verbatim; CatalogOptionsFor() converts them.
struct KubeletConfiguration {
  std::optional<int32_t> max_pods;
  std::optional<int32_t> pods_per_core;
  std::map<std::string, std::string> kube_reserved;    // cpu, memory, ephemeral-storage, pid
  std::map<std::string, std::string> system_reserved;  // same keys
  std::map<std::string, std::string> eviction_hard;    // memory.available, nodefs.available...
  std::map<std::string, std::string> eviction_soft;
  std::map<std::string, std::string> eviction_soft_grace_period;  // signal -> Go duration
  std::optional<int32_t> eviction_max_pod_grace_period;
  std::optional<int32_t> image_gc_high_threshold_percent;
  std::optional<int32_t> image_gc_low_threshold_percent;
  std::optional<bool> cpu_cfs_quota;
  std::vector<std::string> cluster_dns;

  bool empty() const;
  friend bool operator==(const KubeletConfiguration& a, const KubeletConfiguration& b);
};

struct Ec2NodeClass {
  ObjectMeta metadata;  // name required; cluster-scoped
  std::vector<SubnetSelectorTerm> subnet_selector_terms;
  std::vector<SecurityGroupSelectorTerm> security_group_selector_terms;
  std::vector<AmiSelectorTerm> ami_selector_terms;
  std::optional<AwsAmiFamily> ami_family;  // spec.amiFamily as written
  std::string role;                        // exactly one of role and instance_profile
  std::string instance_profile;
  std::optional<std::string> user_data;
  std::map<std::string, std::string> tags;
  MetadataOptions metadata_options;
  std::vector<BlockDeviceMapping> block_device_mappings;
  KubeletConfiguration kubelet;
  std::optional<bool> associate_public_ip_address;
  bool detailed_monitoring = false;
  std::string instance_store_policy;  // "" or "RAID0"

  const std::string& name() const { return metadata.name; }
  // The alias of amiSelectorTerms, if any.
  std::optional<AmiAlias> Alias() const;
  // The bootstrap format: spec.amiFamily if set, else the alias family, else Custom (as the
  // reference's AMIFamily()).
  AwsAmiFamily ResolvedAmiFamily() const;

  friend bool operator==(const Ec2NodeClass& a, const Ec2NodeClass& b);
};

// Checks the rules of the reference's CRD: at least one (at most 30) subnet, security-group
// and AMI selector terms, each with a selector and `id` (or `name`, `alias`) not combined with
// other fields; a well-formed alias alone in its list and agreeing with amiFamily; amiFamily
// required without an alias; exactly one of role and instanceProfile; tags with non-empty keys
// and none of the keys karp sets itself (kubernetes.io/cluster/*, karpenter.sh/nodepool,
// karpenter.sh/nodeclaim, karpenter.k8s.aws/ec2nodeclass, eks:eks-cluster-name); metadata
// option enums and hop limit 1..64; at most one root volume, known volume types, volume sizes
// up to 64Ti; kubelet reserved keys in {cpu, memory, ephemeral-storage, pid} with quantities,
// eviction signals known with quantity or percentage values, evictionSoft and its grace
// periods on the same signals, image GC low < high; instanceStorePolicy "" or RAID0.
// Errors: InvalidArgument `ec2nodeclass "<name>": spec.<field>: <what>`.
[[nodiscard]] absl::Status ValidateEc2NodeClass(const Ec2NodeClass& node_class);

// Reads every object of kind EC2NodeClass (apiVersion karpenter.k8s.aws/v1) from one input
// text: JSON, YAML with one or more documents, single objects or Lists; other kinds are
// skipped. Each class is validated; names must be unique.
// Errors: InvalidArgument `<source>: <json path>: <what>`, e.g.
//   `nodeclass.yaml: documents[1].spec.amiSelectorTerms[0].alias: unknown AMI family "al3"`.
[[nodiscard]] absl::StatusOr<std::vector<Ec2NodeClass>> ParseEc2NodeClasses(
    std::string_view text, std::string_view source);

// Reads and merges files ("-" is standard input); names must be unique across files.
// Errors: as ParseEc2NodeClasses; NotFound when a file cannot be read.
[[nodiscard]] absl::StatusOr<std::vector<Ec2NodeClass>> ReadEc2NodeClassFiles(
    const std::vector<std::string>& paths);

// The class named `name`, or nullptr.
const Ec2NodeClass* FindEc2NodeClass(const std::vector<Ec2NodeClass>& classes,
                                     std::string_view name);

// `base` with the NodeClass's settings applied, by the rules snapshots with EC2NodeClasses use
// in `karp solve` (karp::AwsCatalogOptionsForNodeClass, karp/node_class_catalog.h): ami_family
// (ResolvedAmiFamily), kubelet max_pods, pods_per_core, kube_reserved, system_reserved (pid
// entries are not resources karp schedules and are left out), eviction_hard (evictionSoft does
// not reduce allocatable), the ephemeral volume size (karp::NodeClassEphemeralVolumeBytes: the
// rootVolume mapping if it has a size, else on Custom the last mapping's, else the mapping on
// the family's device /dev/xvda, /dev/xvdb on Bottlerocket, /dev/sda1 on Windows) and
// instanceStorePolicy RAID0.
// Errors: InvalidArgument from ValidateEc2NodeClass or AwsCatalogOptions::Validate.
[[nodiscard]] absl::StatusOr<AwsCatalogOptions> CatalogOptionsFor(const Ec2NodeClass& node_class,
                                                                  AwsCatalogOptions base);

// The static hash of the NodeClass (decimal 64-bit FNV-1a of a canonical encoding): every
// spec field except the selector terms and the literal amiFamily, plus the resolved AMI
// family. Equal specs give equal hashes on every platform and run. Recorded on NodeClaims at
// launch as kAnnotationEc2NodeClassHash (with kAnnotationEc2NodeClassHashVersion).
std::string Ec2NodeClassHash(const Ec2NodeClass& node_class);

// The tags of an instance, its volumes and launch templates (§3.8): spec.tags, then the keys
// karp owns (which win): kubernetes.io/cluster/<cluster>=owned, eks:eks-cluster-name=<cluster>,
// karpenter.sh/nodepool=<node_pool>, karpenter.k8s.aws/ec2nodeclass=<class name>, and
// karpenter.sh/nodeclaim=<node_claim> when `node_claim` is non-empty.
// Errors: InvalidArgument when `cluster_name` is empty or spec.tags has a restricted key.
[[nodiscard]] absl::StatusOr<std::map<std::string, std::string>> Ec2Tags(
    const Ec2NodeClass& node_class, std::string_view cluster_name, std::string_view node_pool,
    std::string_view node_claim);

}  // namespace karp::aws

#endif  // KARP_AWS_EC2NODECLASS_H_
