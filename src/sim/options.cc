// What a simulation run is configured with (docs/simulator.md): SimOptions' checks, the named
// policies, and the simulation catalog (the embedded AWS catalog with spot modelled per type and
// zone).

#include "karp/sim/simulator.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "sim/random.h"

namespace karp::sim {

absl::Status SimOptions::Validate() const {
  struct Field {
    const char* name;
    absl::Duration value;
  };
  const Field fields[] = {{"launch_latency", launch_latency},
                          {"batch_idle", batch_idle},
                          {"batch_max", batch_max},
                          {"pending_requeue", pending_requeue},
                          {"disruption_interval", disruption_interval},
                          {"consolidated_refresh", consolidated_refresh},
                          {"scan_interval", scan_interval},
                          {"interruption_notice", interruption_notice},
                          {"sample_interval", sample_interval}};
  for (const Field& f : fields) {
    if (f.value <= absl::ZeroDuration() || f.value == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          internal::StrCat("simulator options: ", f.name, " must be a positive finite duration"));
    }
  }
  return absl::OkStatus();
}

std::vector<Policy> StandardPolicies() {
  std::vector<Policy> out;
  auto karpenter = [&](std::string name, ConsolidationPolicy cp, std::string capacity_type) {
    Policy p;
    p.name = std::move(name);
    p.kind = Policy::Kind::kKarpenter;
    p.consolidation_policy = cp;
    p.capacity_types = {std::move(capacity_type)};
    out.push_back(std::move(p));
  };
  karpenter("underutilized-spot", ConsolidationPolicy::kWhenEmptyOrUnderutilized, "spot");
  karpenter("underutilized-on-demand", ConsolidationPolicy::kWhenEmptyOrUnderutilized, "on-demand");
  karpenter("empty-spot", ConsolidationPolicy::kWhenEmpty, "spot");
  karpenter("empty-on-demand", ConsolidationPolicy::kWhenEmpty, "on-demand");
  Policy s;
  s.name = "static-groups";
  s.kind = Policy::Kind::kStaticGroups;
  s.capacity_types = {"on-demand"};
  out.push_back(std::move(s));
  return out;
}

std::vector<Policy> RepackPolicies() {
  std::vector<Policy> out;
  for (const char* capacity_type : {"spot", "on-demand"}) {
    Policy p;
    p.name = internal::StrCat("repack-", capacity_type);
    p.kind = Policy::Kind::kKarpenter;
    p.consolidation_policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    p.consolidation_mode = ConsolidationMode::kRepack;
    p.capacity_types = {capacity_type};
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Policy> AllPolicies() {
  std::vector<Policy> out = StandardPolicies();
  for (Policy& p : RepackPolicies()) out.push_back(std::move(p));
  return out;
}

absl::StatusOr<InstanceCatalog> SimulationCatalog() {
  AwsCatalogOptions options;
  options.estimate_spot_prices = false;  // spot offerings at the on-demand price, modelled below
  KARP_ASSIGN_OR_RETURN(InstanceCatalog base, EmbeddedAwsCatalog(options));
  std::vector<InstanceType> types = base.instance_types();
  for (InstanceType& it : types) {
    bool changed = false;
    for (Offering& o : it.offerings) {
      if (o.capacity_type != kCapacityTypeSpot) continue;
      const double u = Unit(SplitMix(Fnv1a(o.zone, Fnv1a(it.name))));
      o.price = std::round(o.price * (0.30 + 0.15 * u) * 1e5) / 1e5;
      o.price_estimated = true;
      changed = true;
    }
    if (changed) it.RebuildRequirements();
  }
  return InstanceCatalog::Create(std::move(types), base.well_known_labels(),
                                 /*register_label_keys=*/false);
}

}  // namespace karp::sim
