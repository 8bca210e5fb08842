// Exact packing of small groups of pods for the cost mode (docs/design.md §13.2).
//
// Pods that would open claims of the same NodePool template form a group. For a group of at
// most ExactLimits::max_pods pods whose constraints the abstract model below captures, a
// branch-and-bound search finds the partition of the pods into nodes with the least total
// price: each node is one instance type of the template at one capacity type (capacity less
// the DaemonSet overhead, price of its cheapest offering of that capacity type) that every pod
// on it may use and that holds their summed requests; pods that exclude each other (required or
// preferred hostname anti-affinity, host ports) are on different nodes. The result is a plan:
// PodData::plan_group numbers each node, and the Solver opens one claim per group and puts the
// group's pods on it, checking every constraint as always (a pod the claim refuses opens a
// claim of its own, so a plan can cost more than planned, never break a rule).
//
// Not modelled, hence left to the heuristic packing: pod affinity, zonal anti-affinity,
// topology spread over hostnames, volumes, minValues, and pods any of those touch.

#ifndef KARP_SRC_SCHEDULING_EXACT_PACKING_H_
#define KARP_SRC_SCHEDULING_EXACT_PACKING_H_

#include <cstdint>
#include <vector>

#include "scheduling/solver.h"

namespace karp::scheduling {

struct ExactLimits {
  size_t max_pods = 10;             // largest group searched
  int64_t max_expansions = 400000;  // search nodes per group; the best found so far is kept
  // PlanRepack, first round: after the windows, single pods are moved between any two nodes
  // of the plan of one template (local_moves.h).
  bool moves = true;
};

// Sets plan_group on the pods of every small enough group (groups numbered from 0 in queue
// order of their first pod). Returns the number of pods planned.
int PlanSmallGroups(const scheduling::SchedulerState& state, std::vector<PodData>& pods,
                    const ExactLimits& limits);

// Local improvement of a finished packing (docs/design.md §13.3): the new claims of `result`
// are taken in windows of consecutive claims of one template holding at most
// ExactLimits::max_pods pods together (every pod modelled), and each window's pods are packed
// exactly; a window whose exact partition is cheaper than its claims' launch prices is
// replaced by it. Then (ExactLimits::moves; round 0, solves of at most 10,000 pods: the
// moves' plan costs one more solve) single pods move between any two nodes of the plan of one
// template while a move lowers the plan's price (local_moves.h): modelled pods only, never
// next to a pod they exclude or that spreads them over hostnames, never a pod a pod affinity
// selects, never the pod that narrowed its claim to a zone, and a pod whose zone some
// topology counts only between nodes where the replay counts it alike (narrowed to the same
// zone before its turn in the queue, or not narrowed then); claims holding unmodelled pods
// take part, their unmodelled pods staying. Sets plan_group on every pod of `result`'s new
// claims (a kept node is one group) and returns the price the plan saves in the abstract model
// (0: nothing to gain, and no plan is set). The plan must be replayed by a cost-mode Solver,
// which checks every constraint again.
// `round` picks the order claims are windowed in within a template: 0 creation order, 1 by
// launch price, 2 by launch price descending (successive rounds pair different neighbours).
double PlanRepack(const scheduling::SchedulerState& state, std::vector<PodData>& pods,
                  const SolveResult& result, const ExactLimits& limits, int round = 0);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_EXACT_PACKING_H_
