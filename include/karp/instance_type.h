// File: karp/instance_type.h
//
// Instance types and their offerings (karpenter `pkg/cloudprovider/types.go`): what a cloud
// can launch, with capacity, kubelet overhead and per-zone/capacity-type prices.
//
// Example:
//   karp::InstanceType it = karp::InstanceType::Make(
//       "m5.large", {{"kubernetes.io/arch", "amd64"}},
//       karp::ResourceList{{"cpu", 2000}, {"memory", 7577LL << 20}, {"pods", 29}},
//       karp::Overhead{}, {karp::Offering{"us-east-1a", "on-demand", 0.096}});
//   it.Allocatable();  // capacity - overhead
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_INSTANCE_TYPE_H_
#define KARP_INSTANCE_TYPE_H_

#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "karp/requirements.h"
#include "karp/resources.h"

namespace karp {

// One way to buy an instance type: a zone and a capacity type at an hourly price.
struct Offering {
  std::string zone;
  std::string capacity_type;  // "on-demand", "spot" or "reserved"
  double price = 0;           // per hour
  bool available = true;
  // Reserved offerings only: the reservation and how many instances it can still launch.
  std::string reservation_id;
  int64_t reservation_capacity = 0;
  // True when `price` is an estimate rather than a quoted price (the embedded AWS catalog's
  // spot prices, see karp/aws_catalog.h). Informational: decisions use `price` either way.
  bool price_estimated = false;
  // True when a NodeOverlay set `price` (karp/node_overlay.h; the reference's
  // Offering.IsPriceOverlaid). Informational: decisions use `price` either way.
  bool price_overlay_applied = false;

  // zone In [zone], capacity-type In [capacity_type] (the offering's requirements).
  Requirements ToRequirements() const;

  friend bool operator==(const Offering& a, const Offering& b) {
    return a.zone == b.zone && a.capacity_type == b.capacity_type && a.price == b.price &&
           a.available == b.available && a.reservation_id == b.reservation_id &&
           a.reservation_capacity == b.reservation_capacity &&
           a.price_estimated == b.price_estimated &&
           a.price_overlay_applied == b.price_overlay_applied;
  }
};

// karpenter `Offering` compatibility: `reqs.IsCompatible(offering requirements,
// AllowUndefinedWellKnownLabels)`, i.e. the offering's zone and capacity type are allowed by
// `reqs` where `reqs` constrains them.
bool OfferingCompatible(const Requirements& reqs, const Offering& offering);

// Capacity-type precedence used for launch decisions: reserved (0), spot (1), on-demand (2),
// anything else (3).
int CapacityTypeRank(std::string_view capacity_type);

// Kubelet overhead subtracted from capacity to get allocatable.
struct Overhead {
  ResourceList kube_reserved;
  ResourceList system_reserved;
  ResourceList eviction_threshold;

  ResourceList Total() const;
  friend bool operator==(const Overhead& a, const Overhead& b) {
    return a.kube_reserved == b.kube_reserved && a.system_reserved == b.system_reserved &&
           a.eviction_threshold == b.eviction_threshold;
  }
};

struct InstanceType {
  std::string name;
  // Single-valued labels as given by the catalog (without instance-type, zone and
  // capacity-type, which come from the name and the offerings).
  std::map<std::string, std::string> labels;
  // The scheduling view: `labels` as In requirements plus instance-type In [name],
  // zone In [zones of available offerings], capacity-type In [their capacity types], and any
  // extra constraints a provider adds (e.g. DoesNotExist for absent optional labels).
  Requirements requirements;
  // Constraints beyond the labels (e.g. DoesNotExist for optional provider labels the type
  // lacks, or a multi-valued kubernetes.io/os); kept by RebuildRequirements() and written to
  // catalog files as "requirements".
  Requirements extra_requirements;
  ResourceList capacity;
  Overhead overhead;
  std::vector<Offering> offerings;
  // True when a NodeOverlay added to or replaced part of `capacity` (karp/node_overlay.h; the
  // reference's IsCapacityOverlayApplied).
  bool capacity_overlay_applied = false;

  // True when a NodeOverlay set the price of one of the offerings (the reference's
  // IsPricingOverlayApplied).
  bool PriceOverlayApplied() const;

  // Builds an instance type and derives `requirements` as described above.
  static InstanceType Make(std::string name, std::map<std::string, std::string> labels,
                           ResourceList capacity, Overhead overhead,
                           std::vector<Offering> offerings);
  // Sets extra_requirements to `extra` and recomputes `requirements` from name, labels,
  // offerings and extra_requirements.
  void RebuildRequirements(const Requirements& extra);
  // Recomputes `requirements` keeping the current extra_requirements (e.g. after offerings
  // changed availability).
  void RebuildRequirements();

  // capacity - (kubeReserved + systemReserved + evictionThreshold), per key of capacity, then
  // memory reduced by every hugepages-* capacity (floored at 0) (docs/design.md §2.3).
  ResourceList Allocatable() const;

  // The cheapest available offering compatible with `reqs`, or nullptr. Ties: capacity-type
  // rank, then zone name.
  const Offering* CheapestOffering(const Requirements& reqs) const;
  // karpenter `WorstLaunchPrice`: among compatible available offerings of the first capacity
  // type (reserved, spot, on-demand) that has any, the most expensive price; +infinity if none.
  double WorstLaunchPrice(const Requirements& reqs) const;
  // True if some available offering is compatible with `reqs`.
  bool HasCompatibleOffering(const Requirements& reqs) const;

  friend bool operator==(const InstanceType& a, const InstanceType& b) {
    return a.name == b.name && a.labels == b.labels && a.requirements == b.requirements &&
           a.extra_requirements == b.extra_requirements && a.capacity == b.capacity &&
           a.overhead == b.overhead && a.offerings == b.offerings &&
           a.capacity_overlay_applied == b.capacity_overlay_applied;
  }
};

inline constexpr double kNoPrice = std::numeric_limits<double>::infinity();

}  // namespace karp

#endif  // KARP_INSTANCE_TYPE_H_
