// File: karp/aws/cluster_info.h
//
// ClusterInfo: the cluster facts an EC2 node needs to join (EKS DescribeCluster and the
// kube-dns service), rendered into its user data (AwsCloudProviderOptions::cluster, EC2NodeClass
// mode). A value type.

#ifndef KARP_AWS_CLUSTER_INFO_H_
#define KARP_AWS_CLUSTER_INFO_H_

#include <string>

namespace karp::aws {

struct ClusterInfo {
  std::string name;       // required
  std::string endpoint;   // API server URL; required
  std::string ca_bundle;  // base64 PEM bundle; required
  std::string cidr;       // service CIDR; required by AL2023 (nodeadm)
  std::string dns_ip;     // cluster DNS IP; optional (kubelet clusterDNS overrides it)
};

}  // namespace karp::aws

#endif  // KARP_AWS_CLUSTER_INFO_H_
