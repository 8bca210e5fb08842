// Instance-type filtering of a NodeClaim (docs/design.md §5.10): the full filter with the
// reference's error messages and minValues relaxation, the incremental hot-path filter, host
// port conflicts and offering lookups through a template's offering masks.

#ifndef KARP_SRC_SCHEDULING_INSTANCE_FILTER_H_
#define KARP_SRC_SCHEDULING_INSTANCE_FILTER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "scheduling/scheduler_internal.h"

namespace karp::scheduling {

// True if two sets of host ports collide (same port and protocol, and an unspecified or equal
// host IP). Inline: it runs in the first-fit loops.
inline bool HostPortsConflict(const std::vector<ContainerPort>& a,
                              const std::vector<ContainerPort>& b) {
  for (const ContainerPort& x : a) {
    for (const ContainerPort& y : b) {
      if (x.host_port != y.host_port || x.protocol != y.protocol) continue;
      const bool x_any = x.host_ip.empty() || x.host_ip == "0.0.0.0";
      const bool y_any = y.host_ip.empty() || y.host_ip == "0.0.0.0";
      if (x_any || y_any || x.host_ip == y.host_ip) return true;
    }
  }
  return false;
}

struct FilterOutcome {
  std::vector<int> kept;
  bool relaxed_min_values = false;
  absl::Status error;  // set when kept is empty or minValues fails
};

// The full filter of `candidates` (indexes into t.instance_types) for a claim with
// requirements `reqs` and `requests` (pod and claim): the kept types, or the reference's error
// explaining why none is kept. With `relax_min_values`, unsatisfiable minValues of `reqs` are
// lowered to what the kept types achieve.
FilterOutcome FilterInstanceTypes(const Template& t, const std::vector<int>& candidates,
                                  Requirements& reqs, const ResourceList& requests,
                                  const std::vector<ContainerPort>& pod_ports,
                                  const std::vector<ContainerPort>& claim_ports,
                                  bool relax_min_values);

// The hot-path filter. Invariant: every type in `candidates` already intersects the claim's
// current requirements `base` and has an available offering compatible with them, so only
// the keys that changed (`changed`) are re-checked, offerings only if zone or capacity type
// changed, and resources always. Returns the kept types (minValues not applied), in the order
// of `candidates`; with `dropped`, the others are written there, in the same order.
std::vector<int> FastFilter(const Template& t, const std::vector<int>& candidates,
                            const Requirements& reqs, const std::vector<std::string>& changed,
                            const ResourceList& requests,
                            const std::vector<ContainerPort>& pod_ports,
                            const std::vector<ContainerPort>& claim_ports,
                            std::vector<int>* dropped = nullptr);

// FastFilter writing the kept types into `kept` (its capacity reused: the solver passes the
// same buffers call after call). With `candidate_bits` (`candidates` as a bit set over the
// template's types, Template::words words; `candidates` must then be ascending), the common
// case runs by words instead of per candidate and `kept_bits` receives the kept set (it is
// cleared when the call could not produce it); when it keeps no type, `dropped` is left empty. With
// `all_kept`, a call by words that keeps every candidate sets it and leaves `kept` empty instead of
// copying `candidates` (it is set false otherwise).
void FastFilter(const Template& t, const std::vector<int>& candidates, const Requirements& reqs,
                const std::vector<std::string>& changed, const ResourceList& requests,
                const std::vector<ContainerPort>& pod_ports,
                const std::vector<ContainerPort>& claim_ports, std::vector<int>* kept,
                std::vector<int>* dropped, const std::vector<uint64_t>* candidate_bits,
                std::vector<uint64_t>* kept_bits, bool* all_kept = nullptr);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_INSTANCE_FILTER_H_
