// MakeCoveringLp when karp is built without an LP solver (quality/covering_lp.h): the
// configuration-LP bound is not computed and karp::PriceLowerBound keeps its fractional bound.

#include <memory>
#include <vector>

#include "quality/covering_lp.h"

namespace karp::quality {

std::unique_ptr<CoveringLp> MakeCoveringLp(const std::vector<double>& /*demand*/) {
  return nullptr;
}

}  // namespace karp::quality
