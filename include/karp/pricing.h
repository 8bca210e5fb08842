// File: karp/pricing.h
//
// The pricing seam: what an instance really costs the customer per hour, given what already
// runs and the customer's commitments (Reserved Instances, Savings Plans, capacity
// reservations; docs/commitments.md). The scheduler and the consolidator use it when
// SchedulerOptions::pricing / ConsolidationOptions::pricing is set; without it every decision
// uses the offerings' list prices, exactly as before.
//
// A PricingModel prices instances one at a time through a PricingLedger: the *marginal* cost
// of one more instance is what the bill grows by when it is added to what the ledger already
// holds. The base class is the list-price model (marginal = list price, no commitments); a
// host may derive its own (e.g. enterprise discounts) and override Start and Commitments.
//
// Example:
//   karp::Commitments c;  // or karp::json::ParseCommitments(text, "commitments.json")
//   c.reserved_instances.push_back({"ri-1", "m5.large", false, "us-east-1", "", 2, 0.06, {}});
//   std::shared_ptr<const karp::PricingModel> model = *karp::MakeCommitmentPricing(c, now);
//   auto ledger = model->Start({});
//   ledger->Marginal({"m5.large", "us-east-1a", "on-demand", 0.096, ""});  // 0: an unused RI
//
// Thread-safety: a PricingModel is immutable and may be shared between threads; a ledger is
// thread-compatible (one per decision) and may outlive its model.

#ifndef KARP_PRICING_H_
#define KARP_PRICING_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace karp {

struct ClusterSnapshot;
class InstanceCatalog;

// One running (or about to be launched) instance, as pricing sees it.
struct PricedInstance {
  std::string instance_type;   // e.g. "m5.large"
  std::string zone;            // e.g. "us-east-1a"
  std::string capacity_type;   // "on-demand", "spot" or "reserved"
  double list_price = 0;       // the offering's price per hour (the catalog's)
  std::string reservation_id;  // the capacity reservation it runs in ("" if unknown or none)
};

// How a fleet's hourly bill is paid (PricingModel::Bill). total() is what the customer pays.
struct CostBreakdown {
  // Paid whatever runs: RI fees, capacity reservation fees and Savings Plan commitments.
  double committed = 0;
  // The part of the Savings Plan commitments that covered usage at discounted rates (drawn
  // from `committed`, not added to it).
  double discounted = 0;
  // Usage beyond the commitments at list price (on-demand, and reserved capacity not in a
  // known reservation).
  double on_demand = 0;
  double spot = 0;
  // The sum of the instances' marginal costs in the ledger's order (what decisions see).
  double effective = 0;

  double total() const { return committed + on_demand + spot; }
};

// Sequential pricing state: what has been added so far and which commitments it used.
class PricingLedger {
 public:
  virtual ~PricingLedger() = default;
  // The hourly cost of adding `instance` now (>= 0, at most its list price for the commitment
  // model). Does not change the ledger. O(commitments).
  virtual double Marginal(const PricedInstance& instance) const = 0;
  // Adds `instance`: later marginals see the commitments it used.
  virtual void Add(const PricedInstance& instance) = 0;
  // The bill of everything added so far.
  virtual CostBreakdown Bill() const = 0;
};

// The list-price model: every instance costs its list price; nothing is committed.
class PricingModel {
 public:
  virtual ~PricingModel() = default;
  // A ledger holding `running`, added in CanonicalOrder (so the result does not depend on
  // the order given).
  virtual std::unique_ptr<PricingLedger> Start(std::vector<PricedInstance> running) const;
  // Bill of `fleet`: Start(fleet)->Bill().
  CostBreakdown Bill(std::vector<PricedInstance> fleet) const;
  // Bill(fleet).effective: the cost consolidation compares (savings are its change).
  double EffectiveCost(std::vector<PricedInstance> fleet) const;
};

// Sorts instances by capacity type, type, zone, reservation and price: the order in which a
// ledger's Start adds what already runs.
void CanonicalOrder(std::vector<PricedInstance>& instances);

// The instances a snapshot runs: its Nodes, then NodeClaims without a Node (in flight), with
// instance type, zone and capacity type from their labels (karpenter.sh/capacity-type,
// node.kubernetes.io/instance-type, topology.kubernetes.io/zone; the reservation from
// karpenter.k8s.aws/capacity-reservation-id) and the list price of that offering in the
// first catalog that has the type (0 when none has it). Nodes without an instance-type label
// are left out. Deleted or deleting nodes count (they are billed until they are gone).
std::vector<PricedInstance> RunningInstances(const ClusterSnapshot& snapshot,
                                             const std::vector<const InstanceCatalog*>& catalogs);

// ---------------------------------------------------------------------------------------------
// Commitments (docs/commitments.md; JSON in docs/formats.md §6).

// A Reserved Instance purchase. Zonal (zone set): `count` instances of exactly
// `instance_type` in `zone`. Regional (region set): `count` instances of `instance_type` in
// any zone of the region or, when `size_flexible`, count x NF(size) normalized units of the
// type's family (NF: nano 0.25, micro 0.5, small 1, medium 2, large 4, xlarge 8, Nxlarge 8N,
// or Commitments::normalization_factors) shared by every size of the family.
struct ReservedInstance {
  std::string id;
  std::string instance_type;
  bool size_flexible = false;
  std::string region;
  std::string zone;
  int64_t count = 0;
  double hourly_price = 0;        // effective fee per instance-hour (upfront amortized)
  std::optional<absl::Time> end;  // ignored from then on
};

enum class SavingsPlanType { kCompute, kEc2Instance };

// A Savings Plan: usage it covers costs (1 - discount) x list price, drawn from
// `hourly_commitment` until it is used up. EC2 Instance plans cover one family in one
// region; Compute plans cover any family and region. Discounts: `discounts` by instance type,
// then by family, else `default_discount` (fractions in [0, 1)).
struct SavingsPlan {
  std::string id;
  SavingsPlanType type = SavingsPlanType::kCompute;
  double hourly_commitment = 0;
  std::string region;  // EC2 Instance only
  std::string family;  // EC2 Instance only
  double default_discount = 0;
  std::map<std::string, double> discounts;
  std::optional<absl::Time> end;
};

// An On-Demand Capacity Reservation: `count` instances of `instance_type` in `zone`, paid
// (hourly_price each) whether used or not, so launching into it costs nothing more.
// `available` is how many are free now (the catalog's reserved offering capacity).
struct CapacityReservation {
  std::string id;
  std::string instance_type;
  std::string zone;
  int64_t count = 0;
  int64_t available = 0;
  double hourly_price = 0;
  bool targeted = false;  // instance match criteria "targeted" (launches must name it)
  std::optional<absl::Time> end;
};

struct Commitments {
  std::vector<ReservedInstance> reserved_instances;
  std::vector<SavingsPlan> savings_plans;
  std::vector<CapacityReservation> capacity_reservations;
  // Size ("metal") or instance type ("m5.metal") -> normalization factor, over the standard
  // table.
  std::map<std::string, double> normalization_factors;

  bool empty() const {
    return reserved_instances.empty() && savings_plans.empty() && capacity_reservations.empty();
  }
  // OK, or InvalidArgument naming the object and field (e.g. `reservedInstances[2].count:
  // must be > 0`): ids non-empty and unique per kind, exactly one of region and zone for an
  // RI (zone for a size-flexible one is an error), counts > 0, 0 <= available <= count,
  // prices and commitments finite and >= 0, discounts in [0, 1), factors > 0.
  [[nodiscard]] absl::Status Validate() const;
};

// Commitments that can lower no price with `catalog`, one line each, for a person to read: a
// Reserved Instance or capacity reservation of an instance type (or, size-flexible, a family)
// the catalog lacks, or of a region or zone none of its offerings is in; an EC2 Instance
// Savings Plan of a family or region the catalog lacks. E.g. `reservedInstances[0] (ri-1):
// instance type m5.nonexistent is not in the catalog; it lowers no price`. Empty when every
// commitment may apply. O(commitments + offerings).
std::vector<std::string> UnmatchedCommitments(const Commitments& commitments,
                                              const InstanceCatalog& catalog);

// The commitment model over `commitments` active at `now` (those whose end is after `now`).
// Marginal cost of an instance, in this order: spot at list price; reserved capacity in a
// known reservation with room 0; on-demand covered by a zonal RI, then a regional RI, then
// a size-flexible RI (partly, by normalized units) 0; then Savings Plans (EC2 Instance before
// Compute, ids in order) at the discounted rate until each commitment is used up; the rest at
// list price. Errors: those of Validate.
[[nodiscard]] absl::StatusOr<std::shared_ptr<const PricingModel>> MakeCommitmentPricing(
    Commitments commitments, absl::Time now);

// `catalog` with a reserved offering (reservation_id, reservation_capacity = available, price
// = hourly_price, or the type's on-demand price in that zone when 0) for every capacity
// reservation of `commitments` that the catalog does not already carry (same reservation id).
// Errors: InvalidArgument `capacityReservations[<i>].instanceType: "<type>" is not in the
// catalog`.
[[nodiscard]] absl::StatusOr<InstanceCatalog> WithCapacityReservations(
    const InstanceCatalog& catalog, const Commitments& commitments);

// The normalization factor of `instance_type` (see ReservedInstance), or nullopt when its size
// is not in the table nor in `overrides`.
std::optional<double> NormalizationFactor(const std::string& instance_type,
                                          const std::map<std::string, double>& overrides);

}  // namespace karp

#endif  // KARP_PRICING_H_
