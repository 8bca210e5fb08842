// File: karp/node_claim.h
//
// NewNodeClaim — a node to launch, as Scheduler::Solve decides it (karp/scheduler.h) and a
// CloudProvider launches it (karp/cloud_provider.h): its NodePool, the instance types it may
// launch as, its narrowed requirements, its pods and the offering a launch would pick.
//
// Value types; thread-compatible.

#ifndef KARP_NODE_CLAIM_H_
#define KARP_NODE_CLAIM_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/shared_strings.h"
#include "karp/taints.h"

namespace karp {

// The offering a launch would pick.
struct Launch {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price = 0;              // the offering's price, or its marginal cost under a pricing model
  bool price_estimated = false;  // the offering's Offering::price_estimated
  // Under a pricing model: the offering's list price (else equal to `price`).
  double list_price = 0;
};

// A NodeClaim the solve decided to create.
struct NewNodeClaim {
  std::string name;  // "<nodepool>-<n>", n counting from 1 in creation order
  std::string node_pool;
  // Every type the claim may launch as (fits all its pods plus daemon overhead, satisfies its
  // requirements, has a compatible available offering), cheapest first, at most
  // max_instance_types. Claims planned from the same types share the list (shared_strings.h).
  SharedStrings instance_types;
  // NodePool requirements and template labels narrowed by the pods' requirements, with
  // instance-type and capacity-type narrowed to the kept types' available offerings.
  Requirements requirements;
  // Sum of pod requests plus the smallest daemon overhead over the claim's instance types
  // before truncation to max_instance_types (as the reference's finalization).
  ResourceList requests;
  std::vector<std::string> pods;  // "namespace/name", in placement order
  std::optional<Launch> launch;   // absent only if no kept type has an available offering
  std::map<std::string, std::string> labels;       // NodePool template labels + single values
  std::map<std::string, std::string> annotations;  // incl. min-values-relaxed
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
};

}  // namespace karp

#endif  // KARP_NODE_CLAIM_H_
