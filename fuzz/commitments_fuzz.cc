// libFuzzer target: karp::json::ParseCommitments on arbitrary bytes. It must never crash,
// hang or throw; errors are InvalidArgument. Commitments that parse must survive
// WriteCommitments -> ParseCommitments with the same text, build a pricing model, and price
// a small fleet with marginal costs in [0, list price].

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/json/commitments.h"
#include "karp/pricing.h"

namespace {

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "commitments_fuzz: %.*s\n%s\n", static_cast<int>(what.size()), what.data(),
               detail.c_str());
  std::abort();
}

// Every instance the commitments name, on demand, reserved and spot, in their zone or region.
std::vector<karp::PricedInstance> Fleet(const karp::Commitments& c) {
  std::vector<karp::PricedInstance> out;
  auto add = [&](const std::string& type, const std::string& zone) {
    for (const char* ct : {"on-demand", "reserved", "spot"}) {
      out.push_back({type, zone, ct, 0.25, ""});
    }
  };
  for (const auto& ri : c.reserved_instances) {
    add(ri.instance_type, ri.zone.empty() ? ri.region + "a" : ri.zone);
  }
  for (const auto& cr : c.capacity_reservations) add(cr.instance_type, cr.zone);
  for (const auto& sp : c.savings_plans) add(sp.family + ".large", sp.region + "a");
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<karp::Commitments> c = karp::json::ParseCommitments(text, "fuzz.yaml");
  if (!c.ok()) {
    if (c.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument", std::string(c.status().ToString()));
    }
    return 0;
  }
  const std::string written = karp::json::WriteCommitments(*c);
  absl::StatusOr<karp::Commitments> again = karp::json::ParseCommitments(written, "written");
  if (!again.ok()) {
    Fail("written commitments do not parse",
         std::string(again.status().message()) + "\n" + written);
  }
  if (karp::json::WriteCommitments(*again) != written) {
    Fail("written text is not a fixed point", written);
  }
  auto model = karp::MakeCommitmentPricing(*c, absl::UnixEpoch());
  if (!model.ok()) Fail("valid commitments build no model", std::string(model.status().message()));
  auto ledger = (*model)->Start({});
  for (const karp::PricedInstance& p : Fleet(*c)) {
    const double m = ledger->Marginal(p);
    if (!(m >= -1e-12 && m <= p.list_price + 1e-12)) Fail("marginal cost out of range", written);
    ledger->Add(p);
  }
  return 0;
}
