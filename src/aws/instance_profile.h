// Internal header of karp::aws: aws/instance_profile.h
//
// Instance profiles for EC2NodeClasses that name an IAM role (`spec.role`), as the reference
// manages them (docs/aws.md §3.9): one profile per (cluster, region, NodeClass), created
// through IAM and put into the NodeClass's launch templates, so nodes get the role's
// credentials. A class with `spec.instanceProfile` uses that profile as is and nothing here
// applies to it.
//
// AwsCloudProvider (karp/aws/aws_cloud_provider.h) does the IAM calls when it resolves a class
// (GetInstanceProfile; if missing CreateInstanceProfile with the path and tags below; then
// RemoveRoleFromInstanceProfile of another role and AddRoleToInstanceProfile) and deletes the
// profiles of classes it no longer has (DeleteUnusedInstanceProfiles). This header holds the
// deterministic parts, for hosts and tests.
//
// Thread-safety: functions are thread-safe.

#ifndef KARP_SRC_AWS_INSTANCE_PROFILE_H_
#define KARP_SRC_AWS_INSTANCE_PROFILE_H_

#include <map>
#include <string>
#include <string_view>

#include "karp/aws/ec2nodeclass.h"

namespace karp::aws {

// "<cluster>_<decimal 64-bit FNV-1a of region + class name>": the same class in the same
// cluster and region always gets the same profile (a role change reuses the profile and
// replaces its role). The reference's legacy name has this shape (its hash function differs).
std::string InstanceProfileName(std::string_view cluster_name, std::string_view region,
                                std::string_view node_class_name);

// "/karpenter/<region>/<cluster>/<class uid, else class name>/" (the reference's path, by
// which the cluster's profiles are listed).
std::string InstanceProfilePath(std::string_view cluster_name, std::string_view region,
                                const Ec2NodeClass& node_class);
// "/karpenter/<region>/<cluster>/": the prefix of every profile karp manages in the cluster.
std::string InstanceProfileClusterPathPrefix(std::string_view cluster_name,
                                             std::string_view region);

// spec.tags, then (winning) kubernetes.io/cluster/<cluster>=owned,
// eks:eks-cluster-name=<cluster>, karpenter.k8s.aws/ec2nodeclass=<class name> and
// topology.kubernetes.io/region=<region>.
std::map<std::string, std::string> InstanceProfileTags(const Ec2NodeClass& node_class,
                                                       std::string_view cluster_name,
                                                       std::string_view region);

// The role name AddRoleToInstanceProfile takes: the part after the last '/' of `role` (a role
// given with its path, "team/KarpenterNodeRole", names "KarpenterNodeRole").
std::string RoleNameForProfile(std::string_view role);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_INSTANCE_PROFILE_H_
