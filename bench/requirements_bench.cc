// Benchmarks of the requirements algebra on realistic requirement sets: a NodePool template,
// an AWS instance type and a pod, combined the way the scheduler combines them.
//
//   build/bench/requirements_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/labels.h"
#include "karp/requirements.h"

namespace {

using karp::Requirement;
using karp::Requirements;

// Core well-known labels plus the AWS provider's (what the AWS catalog registers).
const karp::LabelSet& AwsAndCoreWellKnown() {
  static const karp::LabelSet* const kSet = [] {
    auto* s = new karp::LabelSet(karp::WellKnownLabels());
    s->InsertAll(karp::AwsWellKnownLabels());
    return s;
  }();
  return *kSet;
}

// A typical NodePool template: arch, os, capacity types, categories, generation > 2, plus the
// nodepool and simulation keys the scheduler adds.
Requirements NodePoolTemplate() {
  return Requirements{
      Requirement::In("kubernetes.io/arch", {"amd64", "arm64"}),
      Requirement::In("kubernetes.io/os", {"linux"}),
      Requirement::In("karpenter.sh/capacity-type", {"on-demand", "spot"}),
      Requirement::In("karpenter.k8s.aws/instance-category", {"c", "m", "r"}),
      Requirement::Gt("karpenter.k8s.aws/instance-generation", 2),
      Requirement::In("karpenter.sh/nodepool", {"default"}),
      Requirement::In("karpenter.sh/registered", {"true"}),
      Requirement::In("karpenter.sh/initialized", {"true"}),
      Requirement::In("team", {"payments"}),
  };
}

// A pod with a zone selector, an arch affinity and an instance-family exclusion.
Requirements PodRequirements() {
  return Requirements{
      Requirement::In("topology.kubernetes.io/zone", {"us-east-1a", "us-east-1b"}),
      Requirement::In("kubernetes.io/arch", {"amd64"}),
      Requirement::NotIn("karpenter.k8s.aws/instance-family", {"t3", "t3a"}),
      Requirement::In("team", {"payments"}),
  };
}

// The template narrowed by the pod: what a new NodeClaim's requirements look like.
Requirements ClaimRequirements() {
  Requirements claim = NodePoolTemplate();
  claim.Add(PodRequirements());
  return claim;
}

size_t CountIntersecting(const karp::InstanceCatalog& catalog, const Requirements& claim) {
  size_t n = 0;
  for (const karp::InstanceType& it : catalog.instance_types()) {
    n += it.requirements.DoesIntersect(claim) ? 1 : 0;
  }
  return n;
}

void BM_Requirements_Compatible_TemplateVsPod(benchmark::State& state) {
  const Requirements claim_template = NodePoolTemplate();
  const Requirements pod = PodRequirements();
  const karp::LabelSet& wk = AwsAndCoreWellKnown();
  if (!claim_template.Compatible(pod, &wk).ok()) state.SkipWithError("expected compatible");
  for (auto _ : state) benchmark::DoNotOptimize(claim_template.IsCompatible(pod, &wk));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Requirements_Compatible_TemplateVsPod);

void BM_Requirements_CompatibleWithMessage_TemplateVsPod(benchmark::State& state) {
  const Requirements claim_template = NodePoolTemplate();
  const Requirements pod = PodRequirements();
  const karp::LabelSet& wk = AwsAndCoreWellKnown();
  for (auto _ : state) benchmark::DoNotOptimize(claim_template.Compatible(pod, &wk));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Requirements_CompatibleWithMessage_TemplateVsPod);

void BM_Requirements_Intersection_TemplateAndPod(benchmark::State& state) {
  const Requirements claim_template = NodePoolTemplate();
  const Requirements pod = PodRequirements();
  for (auto _ : state) {
    Requirements r = claim_template;
    r.Add(pod);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Requirements_Intersection_TemplateAndPod);

// Instance type requirements vs the narrowed claim requirements, over the whole AWS catalog:
// the scheduler's per-type filter step.
void BM_Requirements_Intersects_CatalogVsClaim(benchmark::State& state) {
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::EmbeddedAwsCatalog();
  if (!catalog.ok()) {
    state.SkipWithError("catalog");
    return;
  }
  const Requirements claim = ClaimRequirements();
  const size_t compatible = CountIntersecting(*catalog, claim);
  if (compatible == 0) state.SkipWithError("no compatible instance type");
  for (auto _ : state) benchmark::DoNotOptimize(CountIntersecting(*catalog, claim));
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(catalog->instance_types().size()));
  state.counters["types"] = static_cast<double>(catalog->instance_types().size());
  state.counters["compatible"] = static_cast<double>(compatible);
}
BENCHMARK(BM_Requirements_Intersects_CatalogVsClaim);

void BM_Catalog_CompatibleAndOrderByPrice(benchmark::State& state) {
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::EmbeddedAwsCatalog();
  if (!catalog.ok()) {
    state.SkipWithError("catalog");
    return;
  }
  const Requirements claim = ClaimRequirements();
  for (auto _ : state) {
    std::vector<const karp::InstanceType*> types = catalog->Compatible(claim);
    karp::OrderByPrice(types, claim);
    benchmark::DoNotOptimize(types);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Catalog_CompatibleAndOrderByPrice);

}  // namespace

BENCHMARK_MAIN();
