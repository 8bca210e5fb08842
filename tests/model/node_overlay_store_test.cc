// ApplyNodeOverlays (karp/node_overlay.h) against the reference's NodeOverlay controller and
// instance-type store tests (docs/notes/nodeoverlay-reference.md §7a-7e: V-1..V-17,
// I-1..I-10, C-1..C-8, X-1..X-5, F-1..F-4, S-1..S-6, with the fixtures of §6), plus checks of
// karp's own contract (catalog sharing, allocatable, conflict messages, inputs untouched).
//
// Mapping: the reference's ApplyAll(nodePool) is result.by_node_pool.at(pool); its
// ValidationSucceeded condition is NodeOverlayOutcome; a NodePool whose GetInstanceTypes
// fails is a NodePool without a catalog (not evaluated: no entry in by_node_pool). Overlay
// names: where the reference expects "a✗, b✓" of two equal-weight overlays, they are
// "overlay-a" and "overlay-b" (names descending: b applies first, a is the one reported).
//
// Not ported, and why:
//  - F-2 (store.Reset() makes a healthy NodePool unevaluated until the next reconcile) and
//    F-3 (a reconcile where every NodePool succeeds returns RequeueAfter 6h): they test the
//    controller loop and its store swap; ApplyNodeOverlays is a pure function, with no store
//    to reset and nothing to requeue.
//  - The controller-loop halves of X-3, F-1 and F-4 (Reconcile returns the NodePool's error,
//    the rate-limited requeue, the 6h requeue of F-4's second reconcile); their store halves
//    (which NodePools are evaluated) are ported.
//  - The status patch of §3 (optimistic lock, requeue on Conflict or NotFound, the store not
//    swapped then): no status is written here.
//  - S-1's pointer identities (Requirements, Overhead and untouched Offerings shared with the
//    original): karp's catalogs hold values, so S-1 checks value equality; the sharing karp
//    does have (whole catalogs) is checked by the "karp:" test cases at the end.
//  - X-5's NodeClass label key: karp has no NodeClass label. X-4: the notes list no X-4.
//  - V-4 cannot add a resource to karp's well-known resources; it uses `pods`, one of them.
//  - §7f (the AdjustedPrice table, OrderByWeight, the CRD and runtime validation tables) is
//    in tests/model/node_overlay_test.cc; the cost suite's case (L293) is ported here.
//
// Fixture changes: V-10 and V-15 add small-instance-type to F0, so that their NotIn overlay
// selects a type; V-13 uses hugepages-1Gi (a byte quantity) where the notes write
// "hugepage-1Gi"; F6's offering prices are arbitrary (no case asserts them).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "karp/catalog.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/node_overlay.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"

namespace {

using karp::InstanceCatalog;
using karp::InstanceType;
using karp::NodeOverlay;
using karp::NodeOverlayOutcome;
using karp::NodeOverlayResult;
using karp::NodePool;
using karp::NodeSelectorRequirement;
using karp::Offering;
using karp::Operator;
using karp::ResourceList;
using Catalog = std::shared_ptr<const InstanceCatalog>;
using Catalogs = std::map<std::string, Catalog>;

constexpr char kDefaultType[] = "default-instance-type";
constexpr char kSmallType[] = "small-instance-type";
constexpr char kGpuType[] = "gpu-vendor-instance-type";
constexpr char kGpuBType[] = "gpu-vendor-b-instance-type";
constexpr char kArmType[] = "arm-instance-type";
constexpr char kSinglePodType[] = "single-pod-instance-type";
constexpr char kZoneOneType[] = "default-instance-type-zone-one";
constexpr char kZoneTwoType[] = "default-instance-type-zone-two";
constexpr char kZoneFourType[] = "default-instance-type-zone-four";

constexpr char kZone1[] = "test-zone-1";
constexpr char kZone2[] = "test-zone-2";
constexpr char kZone3[] = "test-zone-3";
constexpr char kZone4[] = "test-zone-4";
constexpr char kSpot[] = "spot";
constexpr char kOnDemand[] = "on-demand";
constexpr char kReserved[] = "reserved";

constexpr char kFuse[] = "smarter-devices/fuse";
constexpr char kBuz[] = "smarter-devices/buz";
constexpr char kHugepages1Gi[] = "hugepages-1Gi";
constexpr char kHugepages2Mi[] = "hugepages-2Mi";
constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

// The reference suite's `nodePool` and `nodePoolTwo` (random names there).
constexpr char kPool[] = "default";
constexpr char kPoolTwo[] = "pool-two";

NodeSelectorRequirement Req(std::string_view key, Operator op,
                            std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{std::string(key), op, std::move(values), std::nullopt};
}
NodeSelectorRequirement TypeIn(std::vector<std::string> names) {
  return Req(karp::kLabelInstanceType, Operator::kIn, std::move(names));
}
NodeSelectorRequirement ZoneIn(std::vector<std::string> zones) {
  return Req(karp::kLabelZone, Operator::kIn, std::move(zones));
}
NodeSelectorRequirement CapacityTypeIn(std::vector<std::string> types) {
  return Req(karp::kLabelCapacityType, Operator::kIn, std::move(types));
}
NodeSelectorRequirement PoolIn(std::string pool) {
  return Req(karp::kLabelNodePool, Operator::kIn, {std::move(pool)});
}
// A key the CRD admits and the runtime validation rejects: its name part is longer than 63
// characters (V-3, I-4, C-4a).
std::string TooLongKey() {
  std::string name;
  for (int i = 0; i < 250; ++i) name += "abcdefghijklmnopqrstuvwxyz0123456789"[i % 36];
  return "test.com.test/test-" + name;
}

NodeOverlay Overlay(std::string name, std::vector<NodeSelectorRequirement> reqs,
                    int32_t weight = 10) {
  NodeOverlay o;
  o.metadata.name = std::move(name);
  o.requirements = std::move(reqs);
  o.weight = weight;
  return o;
}
// spec.price when `change` is unsigned, else spec.priceAdjustment (they share one slot).
NodeOverlay PriceOverlay(std::string name, std::vector<NodeSelectorRequirement> reqs,
                         std::string change, int32_t weight = 10) {
  NodeOverlay o = Overlay(std::move(name), std::move(reqs), weight);
  if (!change.empty() && (change[0] == '+' || change[0] == '-')) {
    o.price_adjustment = std::move(change);
  } else {
    o.price = std::move(change);
  }
  return o;
}
NodeOverlay CapacityOverlay(std::string name, std::vector<NodeSelectorRequirement> reqs,
                            ResourceList capacity, int32_t weight = 10) {
  NodeOverlay o = Overlay(std::move(name), std::move(reqs), weight);
  o.capacity = std::move(capacity);
  return o;
}

InstanceType Type(std::string name, std::vector<Offering> offerings,
                  std::map<std::string, std::string> labels = {{std::string(karp::kLabelArch),
                                                                std::string(karp::kArchAmd64)}},
                  ResourceList capacity = {{karp::kResourceCpu, 4000},
                                           {karp::kResourceMemory, 4 * kGi},
                                           {karp::kResourcePods, 5}}) {
  return InstanceType::Make(std::move(name), std::move(labels), std::move(capacity),
                            karp::Overhead{}, std::move(offerings));
}

Offering Off(std::string zone, std::string capacity_type, double price) {
  Offering o;
  o.zone = std::move(zone);
  o.capacity_type = std::move(capacity_type);
  o.price = price;
  return o;
}

Catalog MakeCatalog(std::vector<InstanceType> types) {
  absl::StatusOr<InstanceCatalog> c = InstanceCatalog::Create(std::move(types));
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  return std::make_shared<const InstanceCatalog>(*std::move(c));
}

// F0: default-instance-type with one offering, spot in test-zone-1 at 1.02.
Catalog F0() { return MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.02)})}); }
// F0 and small-instance-type with the same offering (V-10, V-15: so that the overlay with
// NotIn selects a type).
Catalog F0WithSmall() {
  return MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.02)}),
                      Type(kSmallType, {Off(kZone1, kSpot, 1.02)})});
}

// The fake cloud provider's 5 default offerings.
std::vector<Offering> DefaultOfferings() {
  return {Off(kZone1, kSpot, 1.0), Off(kZone2, kSpot, 1.1), Off(kZone1, kOnDemand, 2.0),
          Off(kZone2, kOnDemand, 2.1), Off(kZone3, kOnDemand, 2.2)};
}
InstanceType F6Type(std::string name, ResourceList capacity,
                    std::string arch = std::string(karp::kArchAmd64),
                    std::vector<std::string> os = {"darwin", "linux", "windows"}) {
  InstanceType it = Type(std::move(name), DefaultOfferings(),
                         {{std::string(karp::kLabelArch), std::move(arch)}}, std::move(capacity));
  it.RebuildRequirements(karp::Requirements{karp::Requirement::In(karp::kLabelOs, os)});
  return it;
}
// F6: the fake cloud provider's 6 instance types.
Catalog F6() {
  using karp::kResourceCpu, karp::kResourceMemory, karp::kResourcePods;
  return MakeCatalog({
      F6Type(kDefaultType, {{kResourceCpu, 4000}, {kResourceMemory, 4 * kGi}, {kResourcePods, 5}}),
      F6Type(kSmallType, {{kResourceCpu, 2000}, {kResourceMemory, 2 * kGi}, {kResourcePods, 5}}),
      F6Type(kGpuType, {{kResourceCpu, 4000},
                        {kResourceMemory, 4 * kGi},
                        {kResourcePods, 5},
                        {"fake.com/vendor-a", 2}}),
      F6Type(kGpuBType, {{kResourceCpu, 4000},
                         {kResourceMemory, 4 * kGi},
                         {kResourcePods, 5},
                         {"fake.com/vendor-b", 2}}),
      F6Type(kArmType, {{kResourceCpu, 4000}, {kResourceMemory, 4 * kGi}, {kResourcePods, 5}},
             std::string(karp::kArchArm64), {"darwin", "ios", "linux", "windows"}),
      F6Type(kSinglePodType,
             {{kResourceCpu, 4000}, {kResourceMemory, 4 * kGi}, {kResourcePods, 1}}),
  });
}
// F4: default-instance-type in four offerings.
Catalog F4() {
  return MakeCatalog(
      {Type(kDefaultType, {Off(kZone1, kSpot, 1.02), Off(kZone2, kOnDemand, 2.02),
                           Off(kZone3, kSpot, 3.02), Off(kZone4, kReserved, 4.02)})});
}
// F3: default-instance-type in three offerings.
Catalog F3() {
  return MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.02), Off(kZone2, kOnDemand, 2.02),
                                          Off(kZone4, kReserved, 4.02)})});
}
// F3IT: F3's offerings as three instance types of one offering each.
Catalog F3IT() {
  return MakeCatalog({Type(kZoneOneType, {Off(kZone1, kSpot, 1.02)}),
                      Type(kZoneTwoType, {Off(kZone2, kOnDemand, 2.02)}),
                      Type(kZoneFourType, {Off(kZone4, kReserved, 4.02)})});
}

NodePool Pool(std::string name, std::map<std::string, std::string> labels = {}) {
  NodePool np;
  np.metadata.name = std::move(name);
  np.template_labels = std::move(labels);
  return np;
}

NodeOverlayResult Apply(const std::vector<NodePool>& pools, std::vector<NodeOverlay> overlays,
                        const Catalogs& catalogs) {
  absl::StatusOr<NodeOverlayResult> r =
      karp::ApplyNodeOverlays(pools, std::move(overlays), catalogs);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}
// One NodePool, "default", with `catalog`.
NodeOverlayResult ApplyOne(const Catalog& catalog, std::vector<NodeOverlay> overlays) {
  return Apply({Pool(kPool)}, std::move(overlays), {{kPool, catalog}});
}
// "default" and "pool-two" (template labels `two_labels`), both with `catalog`.
NodeOverlayResult ApplyTwo(const Catalog& catalog, std::vector<NodeOverlay> overlays,
                           std::map<std::string, std::string> two_labels = {}) {
  return Apply({Pool(kPool), Pool(kPoolTwo, std::move(two_labels))}, std::move(overlays),
               {{kPool, catalog}, {kPoolTwo, catalog}});
}

const NodeOverlayOutcome& OutcomeOf(const NodeOverlayResult& r, std::string_view name) {
  auto it = std::find_if(r.overlays.begin(), r.overlays.end(),
                         [&](const NodeOverlayOutcome& o) { return o.name == name; });
  INFO("overlay " << name);
  REQUIRE(it != r.overlays.end());
  return *it;
}
bool Applied(const NodeOverlayResult& r, std::string_view name) {
  return OutcomeOf(r, name).applied();
}
bool Conflicts(const NodeOverlayResult& r, std::string_view name) {
  return OutcomeOf(r, name).reason == karp::kNodeOverlayConflict;
}
bool FailsRuntimeValidation(const NodeOverlayResult& r, std::string_view name) {
  return OutcomeOf(r, name).reason == karp::kNodeOverlayRuntimeValidation;
}

const Catalog& CatalogOf(const NodeOverlayResult& r, std::string_view pool) {
  auto p = r.by_node_pool.find(std::string(pool));
  INFO("nodepool " << pool);
  REQUIRE(p != r.by_node_pool.end());
  REQUIRE(p->second != nullptr);
  return p->second;
}
const InstanceType& TypeOf(const NodeOverlayResult& r, std::string_view pool,
                           std::string_view type) {
  const InstanceType* it = CatalogOf(r, pool)->Find(type);
  INFO("instance type " << type << " in nodepool " << pool);
  REQUIRE(it != nullptr);
  return *it;
}
const Offering& OfferingOf(const InstanceType& it, std::string_view zone, std::string_view ct) {
  auto o = std::find_if(it.offerings.begin(), it.offerings.end(),
                        [&](const Offering& x) { return x.zone == zone && x.capacity_type == ct; });
  INFO(it.name << " offering " << ct << "/" << zone);
  REQUIRE(o != it.offerings.end());
  return *o;
}
double PriceOf(const NodeOverlayResult& r, std::string_view pool, std::string_view type,
               std::string_view zone, std::string_view ct) {
  return OfferingOf(TypeOf(r, pool, type), zone, ct).price;
}
// The price of F0's (and I-1..I-6's) one offering in `pool`.
double F0Price(const NodeOverlayResult& r, std::string_view pool = kPool) {
  const InstanceType& it = TypeOf(r, pool, kDefaultType);
  REQUIRE(it.offerings.size() == 1);
  return it.offerings[0].price;
}

// A Price and a PriceAdjustment entry of the reference's tables: the change and the price it
// gives F0's offering (1.02).
struct Entry {
  const char* change;
  double want;
};
// I-1..I-6: spec.price 13234.223, or spec.priceAdjustment +1000 (1.02 + 1000).
const Entry kIEntries[] = {{"13234.223", 13234.223}, {"+1000", 1.02 + 1000}};

}  // namespace

// ---------------------------------------------------------------------------------------------
// §7a Validation

TEST_CASE("V-1 with no overlays the nodepool gets its instance type unchanged", "[node_overlay]") {
  const Catalog catalog = F0();
  const NodeOverlayResult r = ApplyOne(catalog, {});
  CHECK(r.overlays.empty());
  REQUIRE(r.by_node_pool.size() == 1);
  CHECK(CatalogOf(r, kPool) == catalog);  // the reference returns the same list
  CHECK(CatalogOf(r, kPool)->size() == 1);
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  REQUIRE(it.offerings.size() == 1);
  CHECK(it.offerings[0].price == 1.02);
  CHECK_FALSE(it.PriceOverlayApplied());
  CHECK_FALSE(it.capacity_overlay_applied);
}

TEST_CASE("V-2 a single overlay without price or capacity passes and changes nothing",
          "[node_overlay]") {
  const Catalog catalog = F0();
  const NodeOverlayResult r = ApplyOne(catalog, {Overlay("overlay", {TypeIn({kDefaultType})})});
  const NodeOverlayOutcome& o = OutcomeOf(r, "overlay");
  CHECK(o.applied());
  CHECK(o.message.empty());
  CHECK(o.selected == 1);
  // Nothing is stored for an overlay with neither price nor capacity (store.go returns before
  // it creates an entry), so ApplyAll returns the same list; karp: the same catalog object.
  CHECK(CatalogOf(r, kPool) == catalog);
  CHECK(CatalogOf(r, kPool)->instance_types() == catalog->instance_types());
}

TEST_CASE("V-3 a requirement key whose name part is too long fails runtime validation",
          "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0(), {Overlay("overlay", {Req(TooLongKey(), Operator::kExists)})});
  const NodeOverlayOutcome& o = OutcomeOf(r, "overlay");
  CHECK_FALSE(o.applied());
  CHECK(o.reason == karp::kNodeOverlayRuntimeValidation);
  CHECK_FALSE(o.message.empty());
  CHECK(o.selected == 0);
}

TEST_CASE("V-4 capacity naming a well-known resource fails runtime validation", "[node_overlay]") {
  // The reference adds "testResource" to WellKnownResources; karp's are fixed: pods is one.
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay", {TypeIn({kDefaultType})}, {{karp::kResourcePods, 5}})});
  CHECK(FailsRuntimeValidation(r, "overlay"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.pods() == 5);  // F0's own value, untouched
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity_overlay_applied);
}

TEST_CASE(
    "V-5 overlays overlapping on arm-instance-type's offerings conflict: the name that "
    "sorts first loses",
    "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F6(), {PriceOverlay("overlay-a", {Req(karp::kLabelArch, Operator::kIn, {"arm64"})}, "1.03"),
             PriceOverlay("overlay-b", {Req(karp::kLabelCapacityType, Operator::kExists)}, "23")});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK_THAT(OutcomeOf(r, "overlay-a").message, Catch::Contains(kArmType));
  REQUIRE(CatalogOf(r, kPool)->size() == 6);
  for (const InstanceType& it : CatalogOf(r, kPool)->instance_types()) {
    for (const Offering& o : it.offerings) {
      INFO(it.name << " " << o.capacity_type << "/" << o.zone);
      CHECK(o.price == 23);
      CHECK(o.price_overlay_applied);
    }
  }
}

TEST_CASE("V-6 overlays selecting different instance types do not conflict", "[node_overlay]") {
  InstanceType arm = Type(kArmType, DefaultOfferings(),
                          {{std::string(karp::kLabelArch), std::string(karp::kArchArm64)}});
  arm.RebuildRequirements(
      karp::Requirements{karp::Requirement::In(karp::kLabelOs, {"darwin", "linux", "windows"})});
  const InstanceType amd = Type("amd-instance-type", DefaultOfferings(),
                                {{std::string(karp::kLabelArch), std::string(karp::kArchAmd64)},
                                 {std::string(karp::kLabelOs), "ios"}});
  const NodeOverlayResult r = ApplyOne(
      MakeCatalog({arm, amd}),
      {PriceOverlay("overlay-a", {Req(karp::kLabelArch, Operator::kIn, {"arm64"})}, "1.03"),
       PriceOverlay("overlay-b", {Req(karp::kLabelOs, Operator::kIn, {"ios"})}, "23")});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  for (const Offering& o : TypeOf(r, kPool, kArmType).offerings) CHECK(o.price == 1.03);
  for (const Offering& o : TypeOf(r, kPool, "amd-instance-type").offerings) CHECK(o.price == 23);
}

TEST_CASE("V-7 overlays overlapping on a zone conflict", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F4(), {PriceOverlay("overlay-a", {ZoneIn({kZone1, kZone4})}, "1.03"),
             PriceOverlay("overlay-b", {Req(karp::kLabelCapacityType, Operator::kExists)}, "23")});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  for (const Offering& o : TypeOf(r, kPool, kDefaultType).offerings) CHECK(o.price == 23);
}

TEST_CASE("V-7 overlays overlapping on a capacity type conflict", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F4(), {PriceOverlay("overlay-a", {Req(karp::kLabelCapacityType, Operator::kExists)}, "1.03"),
             PriceOverlay("overlay-b", {CapacityTypeIn({kSpot})}, "23")});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone3, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kOnDemand) == 2.02);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone4, kReserved) == 4.02);
}

TEST_CASE("V-7 overlays selecting disjoint offerings do not conflict", "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F4(), {PriceOverlay("overlay-a", {ZoneIn({"test-zone-6", kZone4})}, "1.03"),
                      PriceOverlay("overlay-b", {CapacityTypeIn({kSpot})}, "23")});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(PriceOf(r, kPool, kDefaultType, kZone4, kReserved) == 1.03);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone3, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kOnDemand) == 2.02);
  CHECK_FALSE(OfferingOf(TypeOf(r, kPool, kDefaultType), kZone2, kOnDemand).price_overlay_applied);
}

TEST_CASE("V-7 overlays sharing one offering conflict", "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F4(), {PriceOverlay("overlay-a", {ZoneIn({kZone1, kZone4})}, "1.03"),
                      PriceOverlay("overlay-b", {CapacityTypeIn({kSpot})}, "23")});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone3, kSpot) == 23);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone4, kReserved) == 4.02);  // a applies nowhere
}

TEST_CASE("V-8 equal-weight price overlays with overlapping requirements conflict",
          "[node_overlay]") {
  struct Case {
    const char* a;
    const char* b;
    double want;
  };
  // Price: b's 23. PriceAdjustment: 1.02 - 2 floored at 0.
  for (const Case& c : {Case{"1.03", "23", 23}, Case{"+54", "-2", 0}}) {
    INFO(c.a << " and " << c.b);
    const NodeOverlayResult r =
        ApplyOne(F0(), {PriceOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType})}, c.a),
                        PriceOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, c.b)});
    CHECK(Conflicts(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CHECK(F0Price(r) == c.want);
  }
}

TEST_CASE("V-9 equal-weight overlays setting the same price still conflict", "[node_overlay]") {
  for (const Entry& e : {Entry{"100", 100}, Entry{"+100", 1.02 + 100}}) {
    INFO(e.change);
    const NodeOverlayResult r =
        ApplyOne(F0(), {PriceOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType})}, e.change),
                        PriceOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, e.change)});
    CHECK(Conflicts(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CHECK(F0Price(r) == e.want);
  }
}

TEST_CASE("V-10 price overlays with mutually exclusive requirements pass", "[node_overlay]") {
  struct Case {
    const char* a;
    const char* b;
    double want_default;
    double want_small;
  };
  for (const Case& c : {Case{"54", "23", 54, 23}, Case{"+54", "-2", 1.02 + 54, 0}}) {
    INFO(c.a << " and " << c.b);
    const NodeOverlayResult r = ApplyOne(
        F0WithSmall(),
        {PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, c.a),
         PriceOverlay("overlay-b",
                      {Req(karp::kLabelInstanceType, Operator::kNotIn, {kDefaultType})}, c.b)});
    CHECK(Applied(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CHECK(F0Price(r) == c.want_default);
    CHECK(TypeOf(r, kPool, kSmallType).offerings[0].price == c.want_small);
  }
}

TEST_CASE("V-11 price overlays of different weights pass and the higher weight sets the price",
          "[node_overlay]") {
  struct Case {
    const char* a;
    const char* b;
    double want;
  };
  for (const Case& c : {Case{"34", "2", 2}, Case{"-4", "-2", 0}}) {
    INFO(c.a << " and " << c.b);
    const NodeOverlayResult r =
        ApplyOne(F0(), {PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, c.a, 10),
                        PriceOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, c.b, 20)});
    CHECK(Applied(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CHECK(F0Price(r) == c.want);
  }
}

TEST_CASE("V-12 equal-weight capacity overlays with overlapping requirements conflict",
          "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType})}, {{kFuse, 1}}),
             CapacityOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, {{kFuse, 54}})});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  CHECK(it.capacity.Get(kFuse) == 54);
  CHECK(it.capacity_overlay_applied);
}

TEST_CASE("V-13 of three equal-weight capacity overlays the one sorting first conflicts",
          "[node_overlay]") {
  // The reference writes the resource "hugepage-1Gi"; karp uses hugepages-1Gi (bytes).
  const NodeOverlayResult r =
      ApplyOne(F0(), {CapacityOverlay("conflicting-overlay-1", {TypeIn({kDefaultType, kSmallType})},
                                      {{kHugepages1Gi, 2 * kGi}}),
                      CapacityOverlay("good-overlay-1", {TypeIn({kDefaultType})}, {{kFuse, 1}}),
                      CapacityOverlay("conflicting-overlay-2", {TypeIn({kDefaultType})},
                                      {{kHugepages1Gi, 3 * kGi}})});
  REQUIRE(r.overlays.size() == 3);  // application order: names descending
  CHECK(r.overlays[0].name == "good-overlay-1");
  CHECK(r.overlays[1].name == "conflicting-overlay-2");
  CHECK(r.overlays[2].name == "conflicting-overlay-1");
  CHECK(Conflicts(r, "conflicting-overlay-1"));
  CHECK(Applied(r, "good-overlay-1"));
  CHECK(Applied(r, "conflicting-overlay-2"));
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  CHECK(it.capacity.Get(kFuse) == 1);
  CHECK(it.capacity.Get(kHugepages1Gi) == 3 * kGi);
}

TEST_CASE("V-14 equal-weight overlays setting the same capacity still conflict", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType})}, {{kFuse, 54}}),
             CapacityOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, {{kFuse, 54}})});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 54);
}

TEST_CASE("V-15 capacity overlays with mutually exclusive requirements pass", "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0WithSmall(),
               {CapacityOverlay("overlay-a", {TypeIn({kDefaultType})}, {{kFuse, 54}}),
                CapacityOverlay("overlay-b",
                                {Req(karp::kLabelInstanceType, Operator::kNotIn, {kDefaultType})},
                                {{kFuse, 5}})});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 54);
  CHECK(TypeOf(r, kPool, kSmallType).capacity.Get(kFuse) == 5);
}

TEST_CASE("V-16 capacity overlays of different weights pass and the higher weight wins",
          "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay-a", {TypeIn({kDefaultType})}, {{kFuse, 55}}, 10),
             CapacityOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, {{kFuse, 5}}, 20)});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 5);
}

TEST_CASE("V-17 capacity overlays naming different resources pass and both apply",
          "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay-a", {TypeIn({kDefaultType})}, {{kFuse, 55}}, 10),
             CapacityOverlay("overlay-b", {TypeIn({kDefaultType, kGpuType})}, {{kBuz, 5}}, 20)});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 55);
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kBuz) == 5);
}

// ---------------------------------------------------------------------------------------------
// §7b Price updates

TEST_CASE("I-1 a price overlay selecting one nodepool leaves the other unchanged",
          "[node_overlay]") {
  for (const Entry& e : kIEntries) {
    INFO(e.change);
    const Catalog catalog = F0();
    const NodeOverlayResult r =
        ApplyTwo(catalog, {PriceOverlay("overlay", {PoolIn(kPool)}, e.change)});
    CHECK(Applied(r, "overlay"));
    CHECK(F0Price(r, kPool) == e.want);
    CHECK(F0Price(r, kPoolTwo) == 1.02);
    CHECK(CatalogOf(r, kPoolTwo) == catalog);
  }
}

TEST_CASE("I-2 equal-weight price overlays on different nodepools do not conflict",
          "[node_overlay]") {
  struct Case {
    const char* a;
    const char* b;
    double want_a;
    double want_b;
  };
  for (const Case& c : {Case{"13234.223", "232.11", 13234.223, 232.11},
                        Case{"+1000", "+2500", 1.02 + 1000, 1.02 + 2500}}) {
    INFO(c.a << " and " << c.b);
    const NodeOverlayResult r =
        ApplyTwo(F0(), {PriceOverlay("overlay-a", {PoolIn(kPool)}, c.a),
                        PriceOverlay("overlay-b", {PoolIn(kPoolTwo)}, c.b)});
    CHECK(Applied(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CHECK(F0Price(r, kPool) == c.want_a);
    CHECK(F0Price(r, kPoolTwo) == c.want_b);
  }
}

TEST_CASE("I-3 a price overlay on a template label applies only to the nodepool with it",
          "[node_overlay]") {
  for (const Entry& e : kIEntries) {
    INFO(e.change);
    const NodeOverlayResult r = ApplyTwo(
        F0(),
        {PriceOverlay("overlay", {Req("test-label", Operator::kIn, {"test-value"})}, e.change)},
        {{"test-label", "test-value"}});
    CHECK(Applied(r, "overlay"));
    CHECK(F0Price(r, kPool) == 1.02);
    CHECK(F0Price(r, kPoolTwo) == e.want);
  }
}

TEST_CASE("I-4 a price overlay failing runtime validation changes no price", "[node_overlay]") {
  for (const Entry& e : kIEntries) {
    INFO(e.change);
    const NodeOverlayResult r =
        ApplyOne(F0(), {PriceOverlay("overlay", {Req(TooLongKey(), Operator::kExists)}, e.change)});
    CHECK(FailsRuntimeValidation(r, "overlay"));
    CHECK(F0Price(r) == 1.02);
    CHECK_FALSE(TypeOf(r, kPool, kDefaultType).PriceOverlayApplied());
  }
}

TEST_CASE("I-5 a price overlay selecting no instance type changes no price", "[node_overlay]") {
  for (const Entry& e : kIEntries) {
    INFO(e.change);
    const NodeOverlayResult r = ApplyOne(
        F0(), {PriceOverlay("overlay", {TypeIn({"default-instance-type-not-found"})}, e.change)});
    CHECK(Applied(r, "overlay"));
    CHECK(OutcomeOf(r, "overlay").selected == 0);
    CHECK(F0Price(r) == 1.02);
    CHECK_FALSE(TypeOf(r, kPool, kDefaultType).PriceOverlayApplied());
  }
}

TEST_CASE("I-6 a price overlay applies to the instance type it selects", "[node_overlay]") {
  for (const Entry& e : kIEntries) {
    INFO(e.change);
    const NodeOverlayResult r =
        ApplyOne(F0(), {PriceOverlay("overlay", {TypeIn({kDefaultType})}, e.change)});
    CHECK(Applied(r, "overlay"));
    CHECK(OutcomeOf(r, "overlay").selected == 1);
    CHECK(F0Price(r) == e.want);
    CHECK(TypeOf(r, kPool, kDefaultType).PriceOverlayApplied());
    CHECK(TypeOf(r, kPool, kDefaultType).offerings[0].price_overlay_applied);
  }
}

TEST_CASE("I-7 a price overlay on a capacity type changes only those offerings", "[node_overlay]") {
  const Catalog catalog =
      MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.02), Off(kZone1, kOnDemand, 5.02)})});
  for (const Entry& e : {Entry{"12321.32", 12321.32}, Entry{"+1000", 5.02 + 1000}}) {
    INFO(e.change);
    const NodeOverlayResult r =
        ApplyOne(catalog, {PriceOverlay("overlay", {CapacityTypeIn({kOnDemand})}, e.change)});
    const InstanceType& it = TypeOf(r, kPool, kDefaultType);
    CHECK(OfferingOf(it, kZone1, kOnDemand).price == e.want);
    CHECK(OfferingOf(it, kZone1, kOnDemand).price_overlay_applied);
    CHECK(OfferingOf(it, kZone1, kSpot).price == 1.02);
    CHECK_FALSE(OfferingOf(it, kZone1, kSpot).price_overlay_applied);
  }
}

TEST_CASE("I-8a a price overlay on a zone changes only that zone's offerings", "[node_overlay]") {
  const Catalog catalog =
      MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.02), Off(kZone2, kSpot, 5.02)})});
  for (const Entry& e : {Entry{"121.421", 121.421}, Entry{"+1000", 1.02 + 1000}}) {
    INFO(e.change);
    const NodeOverlayResult r =
        ApplyOne(catalog, {PriceOverlay("overlay", {ZoneIn({kZone1})}, e.change)});
    CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == e.want);
    CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kSpot) == 5.02);
  }
}

TEST_CASE("I-8b equal-weight price overlays on disjoint offerings both apply", "[node_overlay]") {
  struct Case {
    const char* zones;
    const char* spot;
    double want_z2;
    double want_z4;
    double want_spot;
  };
  for (const Case& c : {Case{"121.421", "165.421", 121.421, 121.421, 165.421},
                        Case{"+201", "-0.5", 203.02, 205.02, 0.52}}) {
    INFO(c.zones << " and " << c.spot);
    const NodeOverlayResult r =
        ApplyOne(F3(), {PriceOverlay("overlay-zones", {ZoneIn({kZone2, kZone4})}, c.zones),
                        PriceOverlay("overlay-spot", {CapacityTypeIn({kSpot})}, c.spot)});
    CHECK(Applied(r, "overlay-zones"));
    CHECK(Applied(r, "overlay-spot"));
    CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kOnDemand) == c.want_z2);
    CHECK(PriceOf(r, kPool, kDefaultType, kZone4, kReserved) == c.want_z4);
    CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == c.want_spot);
  }
}

TEST_CASE("I-8c price overlays of different weights: the higher weight sets the shared offering",
          "[node_overlay]") {
  struct Case {
    const char* a;
    const char* b;
    double want_z2;
    double want_z4;
  };
  for (const Case& c :
       {Case{"121.421", "165.421", 121.421, 165.421}, Case{"+201", "-1.5", 203.02, 2.52}}) {
    INFO(c.a << " and " << c.b);
    const NodeOverlayResult r =
        ApplyOne(F3(), {PriceOverlay("a-test-100", {ZoneIn({kZone2})}, c.a, 20),
                        PriceOverlay("b-test-100", {ZoneIn({kZone2, kZone4})}, c.b, 10)});
    CHECK(Applied(r, "a-test-100"));
    CHECK(Applied(r, "b-test-100"));
    CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kOnDemand) == c.want_z2);
    CHECK(PriceOf(r, kPool, kDefaultType, kZone4, kReserved) == Approx(c.want_z4));
    CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == 1.02);
  }
}

namespace {

// I-9, I-10, C-7, C-8: which of F6's types have a price (or capacity) overlay applied.
void CheckF6Flags(const NodeOverlayResult& r, std::string_view pool, bool capacity) {
  INFO("nodepool " << pool << (capacity ? " capacity" : " price"));
  REQUIRE(CatalogOf(r, pool)->size() == 6);
  const std::map<std::string, bool> want = {{kDefaultType, false}, {kGpuBType, false},
                                            {kSmallType, true},    {kGpuType, true},
                                            {kArmType, false},     {kSinglePodType, false}};
  for (const auto& [name, applied] : want) {
    const InstanceType& it = TypeOf(r, pool, name);
    INFO(name);
    CHECK((capacity ? it.capacity_overlay_applied : it.PriceOverlayApplied()) == applied);
  }
}

}  // namespace

TEST_CASE("I-9 a conflicting price overlay applies to no instance type of the nodepool",
          "[node_overlay]") {
  const Catalog catalog = F6();
  for (const auto& [a, b] : {std::pair{"382", "100"}, std::pair{"-23", "+10"}}) {
    INFO(a << " and " << b);
    const NodeOverlayResult r = ApplyOne(
        catalog, {PriceOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType, kGpuBType})}, a),
                  PriceOverlay("overlay-b", {TypeIn({kSmallType, kGpuType})}, b)});
    CHECK(Conflicts(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CheckF6Flags(r, kPool, /*capacity=*/false);
    for (const char* name : {kSmallType, kGpuType}) {  // b's change on every offering
      const std::vector<Offering>& before = catalog->Find(name)->offerings;
      const std::vector<Offering>& after = TypeOf(r, kPool, name).offerings;
      REQUIRE(after.size() == before.size());
      for (size_t i = 0; i < after.size(); ++i) {
        INFO(name << " offering " << i);
        CHECK(after[i].price == *karp::AdjustedPrice(before[i].price, b));
      }
    }
    CHECK(TypeOf(r, kPool, kDefaultType).offerings == catalog->Find(kDefaultType)->offerings);
    CHECK(TypeOf(r, kPool, kGpuBType).offerings == catalog->Find(kGpuBType)->offerings);
  }
}

TEST_CASE("I-10 a conflicting price overlay applies to no nodepool", "[node_overlay]") {
  for (const auto& [a, b] : {std::pair{"382", "100"}, std::pair{"+10", "-23"}}) {
    INFO(a << " and " << b);
    // The NodePools' own requirements play no part in selection.
    NodePool one = Pool(kPool);
    one.requirements = {TypeIn({kDefaultType, kGpuType, kGpuBType})};
    NodePool two = Pool(kPoolTwo);
    two.requirements = {TypeIn({kGpuBType})};
    const Catalog catalog = F6();
    const NodeOverlayResult r =
        Apply({one, two},
              {PriceOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType, kGpuBType})}, a),
               PriceOverlay("overlay-b", {TypeIn({kSmallType, kGpuType})}, b)},
              {{kPool, catalog}, {kPoolTwo, catalog}});
    CHECK(Conflicts(r, "overlay-a"));
    CHECK(Applied(r, "overlay-b"));
    CheckF6Flags(r, kPool, /*capacity=*/false);
    CheckF6Flags(r, kPoolTwo, /*capacity=*/false);
  }
}

// ---------------------------------------------------------------------------------------------
// §7c Capacity

TEST_CASE("C-1 a capacity overlay selecting one nodepool leaves the other unchanged",
          "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyTwo(F0(), {CapacityOverlay("overlay", {PoolIn(kPool)}, {{kFuse, 1}})});
  CHECK(Applied(r, "overlay"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 1);
  CHECK(TypeOf(r, kPool, kDefaultType).capacity_overlay_applied);
  CHECK_FALSE(TypeOf(r, kPoolTwo, kDefaultType).capacity.Has(kFuse));
  CHECK_FALSE(TypeOf(r, kPoolTwo, kDefaultType).capacity_overlay_applied);
}

TEST_CASE("C-2 equal-weight capacity overlays on different nodepools do not conflict",
          "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyTwo(F0(), {CapacityOverlay("overlay-a", {PoolIn(kPool)}, {{kFuse, 1}}),
                      CapacityOverlay("overlay-b", {PoolIn(kPoolTwo)}, {{"dumb-devices/bar", 2}})});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 1);
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity.Has("dumb-devices/bar"));
  CHECK(TypeOf(r, kPoolTwo, kDefaultType).capacity.Get("dumb-devices/bar") == 2);
  CHECK_FALSE(TypeOf(r, kPoolTwo, kDefaultType).capacity.Has(kFuse));
}

TEST_CASE("C-3 a capacity overlay on a template label applies only to the nodepool with it",
          "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyTwo(F0(),
               {CapacityOverlay("overlay", {Req("test-label", Operator::kIn, {"test-value"})},
                                {{kFuse, 1}})},
               {{"test-label", "test-value"}});
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity.Has(kFuse));
  CHECK(TypeOf(r, kPoolTwo, kDefaultType).capacity.Get(kFuse) == 1);
}

TEST_CASE("C-4a a capacity overlay failing runtime validation adds no capacity", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(), {CapacityOverlay("overlay", {Req(TooLongKey(), Operator::kExists)}, {{kFuse, 1}})});
  CHECK(FailsRuntimeValidation(r, "overlay"));
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity.Has(kFuse));
}

TEST_CASE("C-4b a capacity overlay selecting no instance type adds no capacity", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F0(),
      {CapacityOverlay("overlay", {TypeIn({"default-instance-type-not-found"})}, {{kFuse, 1}})});
  CHECK(Applied(r, "overlay"));
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity.Has(kFuse));
}

TEST_CASE("C-4c a capacity overlay applies to the instance type it selects", "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0(), {CapacityOverlay("overlay", {TypeIn({kDefaultType})}, {{kFuse, 1}})});
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  CHECK(it.capacity.Get(kFuse) == 1);
  CHECK(it.capacity_overlay_applied);
  CHECK(it.offerings.size() == 1);
  CHECK_FALSE(it.PriceOverlayApplied());
}

TEST_CASE("C-5a equal-weight capacity overlays on disjoint instance types both apply",
          "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F3IT(),
      {CapacityOverlay("overlay-zones", {ZoneIn({kZone2, kZone4})}, {{kFuse, 1}}),
       CapacityOverlay("overlay-spot", {CapacityTypeIn({kSpot})}, {{kHugepages1Gi, 2 * kGi}})});
  CHECK(Applied(r, "overlay-zones"));
  CHECK(Applied(r, "overlay-spot"));
  const InstanceType& one = TypeOf(r, kPool, kZoneOneType);
  CHECK(one.offerings[0].price == 1.02);
  CHECK(one.capacity.Get(kHugepages1Gi) == 2 * kGi);
  CHECK_FALSE(one.capacity.Has(kFuse));
  const InstanceType& two = TypeOf(r, kPool, kZoneTwoType);
  CHECK(two.offerings[0].price == 2.02);
  CHECK(two.capacity.Get(kFuse) == 1);
  CHECK_FALSE(two.capacity.Has(kHugepages1Gi));
  const InstanceType& four = TypeOf(r, kPool, kZoneFourType);
  CHECK(four.offerings[0].price == 4.02);
  CHECK(four.capacity.Get(kFuse) == 1);
}

TEST_CASE(
    "C-5b equal-weight capacity overlays naming different resources on one instance type "
    "combine",
    "[node_overlay]") {
  const Catalog catalog = MakeCatalog({Type(kZoneOneType, {Off(kZone1, kSpot, 1.02)})});
  const NodeOverlayResult r = ApplyOne(
      catalog,
      {CapacityOverlay("overlay-a", {TypeIn({kZoneOneType})}, {{kFuse, 1}}),
       CapacityOverlay("overlay-b", {TypeIn({kZoneOneType})}, {{kHugepages1Gi, 2 * kGi}})});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  const InstanceType& it = TypeOf(r, kPool, kZoneOneType);
  CHECK(it.capacity.Get(kFuse) == 1);
  CHECK(it.capacity.Get(kHugepages1Gi) == 2 * kGi);
  CHECK(it.offerings[0].price == 1.02);
}

TEST_CASE("C-5c capacity overlays of different weights merge per resource", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F3IT(),
      {CapacityOverlay("overlay-a", {ZoneIn({kZone2})}, {{kFuse, 1}}, 20),
       CapacityOverlay("overlay-b", {ZoneIn({kZone2, kZone4})}, {{kHugepages1Gi, 2 * kGi}}, 10)});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  const InstanceType& two = TypeOf(r, kPool, kZoneTwoType);
  CHECK(two.capacity.Get(kFuse) == 1);
  CHECK(two.capacity.Get(kHugepages1Gi) == 2 * kGi);  // not asserted by the reference's test
  CHECK(two.offerings[0].price == 2.02);
  const InstanceType& four = TypeOf(r, kPool, kZoneFourType);
  CHECK(four.capacity.Get(kHugepages1Gi) == 2 * kGi);
  CHECK_FALSE(four.capacity.Has(kFuse));
  CHECK(four.offerings[0].price == 4.02);
  CHECK_FALSE(TypeOf(r, kPool, kZoneOneType).capacity_overlay_applied);
}

TEST_CASE("C-6 the higher-weight capacity overlay wins on the same resource", "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0(), {CapacityOverlay("overlay-a", {TypeIn({kDefaultType})}, {{kFuse, 5}}, 10),
                      CapacityOverlay("overlay-b", {TypeIn({kDefaultType})}, {{kFuse, 99}}, 20)});
  CHECK(Applied(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 99);
}

TEST_CASE("C-7 a conflicting capacity overlay applies to no instance type of the nodepool",
          "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      F6(),
      {CapacityOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType, kGpuBType})}, {{kBuz, 54}}),
       CapacityOverlay("overlay-b", {TypeIn({kSmallType, kGpuType})}, {{kBuz, 21}})});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CheckF6Flags(r, kPool, /*capacity=*/true);
  CHECK(TypeOf(r, kPool, kSmallType).capacity.Get(kBuz) == 21);
  CHECK(TypeOf(r, kPool, kGpuType).capacity.Get(kBuz) == 21);
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).capacity.Has(kBuz));
}

TEST_CASE("C-8 a conflicting capacity overlay applies to no nodepool", "[node_overlay]") {
  NodePool one = Pool(kPool);
  one.requirements = {TypeIn({kDefaultType, kGpuType, kGpuBType})};
  NodePool two = Pool(kPoolTwo);
  two.requirements = {TypeIn({kGpuBType})};
  const Catalog catalog = F6();
  const NodeOverlayResult r =
      Apply({one, two},
            {CapacityOverlay("overlay-a", {TypeIn({kDefaultType, kSmallType})}, {{kBuz, 54}}),
             CapacityOverlay("overlay-b", {TypeIn({kSmallType, kGpuType})}, {{kBuz, 21}})},
            {{kPool, catalog}, {kPoolTwo, catalog}});
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(Applied(r, "overlay-b"));
  CheckF6Flags(r, kPool, /*capacity=*/true);
  CheckF6Flags(r, kPoolTwo, /*capacity=*/true);
}

TEST_CASE(
    "X-1 a price overlay and a capacity overlay of equal weight on one instance type both "
    "apply",
    "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0(), {PriceOverlay("price-overlay", {TypeIn({kDefaultType})}, "+1000.0"),
                      CapacityOverlay("capacity-overlay", {TypeIn({kDefaultType})}, {{kFuse, 1}})});
  CHECK(Applied(r, "price-overlay"));
  CHECK(Applied(r, "capacity-overlay"));
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  CHECK(it.offerings[0].price == Approx(1001.02));
  CHECK(it.capacity.Get(kFuse) == 1);
  CHECK(it.PriceOverlayApplied());
  CHECK(it.capacity_overlay_applied);
}

TEST_CASE("X-2 a nodepool with no instance types is evaluated and stays empty", "[node_overlay]") {
  const NodeOverlayResult r = ApplyOne(
      MakeCatalog({}), {CapacityOverlay("overlay", {TypeIn({kDefaultType})}, {{kFuse, 1}})});
  CHECK(Applied(r, "overlay"));
  CHECK(CatalogOf(r, kPool)->size() == 0);
}

TEST_CASE("X-3 a nodepool whose instance types are unknown is not evaluated", "[node_overlay]") {
  const absl::StatusOr<NodeOverlayResult> r = karp::ApplyNodeOverlays(
      {Pool(kPool)}, {CapacityOverlay("overlay", {TypeIn({kDefaultType})}, {{kFuse, 1}})}, {});
  REQUIRE(r.ok());
  CHECK(r->by_node_pool.count(kPool) == 0);
  CHECK(r->by_node_pool.empty());
}

TEST_CASE("X-5 an applied instance type's requirements gain no nodepool or template label keys",
          "[node_overlay]") {
  const Catalog catalog = F0();
  const NodeOverlayResult r = Apply(
      {Pool(kPool, {{"test-label", "test-value"}})},
      {CapacityOverlay("overlay", {TypeIn({kDefaultType})}, {{kFuse, 1}})}, {{kPool, catalog}});
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  REQUIRE(it.capacity_overlay_applied);
  CHECK_FALSE(it.requirements.Has(karp::kLabelNodePool));
  CHECK_FALSE(it.requirements.Has("test-label"));
  CHECK(it.requirements == catalog->Find(kDefaultType)->requirements);
}

// ---------------------------------------------------------------------------------------------
// §7d Failure isolation

TEST_CASE(
    "F-1 a nodepool whose instance types are unknown does not keep the others from being "
    "evaluated",
    "[node_overlay]") {
  const NodeOverlayResult r = Apply({Pool(kPool), Pool("broken-nodepool")}, {}, {{kPool, F0()}});
  CHECK(CatalogOf(r, kPool)->size() == 1);
  CHECK(r.by_node_pool.count("broken-nodepool") == 0);
}

TEST_CASE("F-4 a nodepool is evaluated once its instance types are known", "[node_overlay]") {
  const std::vector<NodePool> pools = {Pool(kPool), Pool("broken-nodepool")};
  const Catalog catalog = F0();
  const NodeOverlayResult first = Apply(pools, {}, {{kPool, catalog}});
  CHECK(first.by_node_pool.count("broken-nodepool") == 0);
  const NodeOverlayResult second =
      Apply(pools, {}, {{kPool, catalog}, {"broken-nodepool", catalog}});
  CHECK(CatalogOf(second, kPool)->size() == 1);
  CHECK(CatalogOf(second, "broken-nodepool")->size() == 1);
}

// ---------------------------------------------------------------------------------------------
// §7e Store

namespace {

// S-1..S-3: m5.large in two on-demand offerings at 0.096.
InstanceType M5Large() {
  karp::Overhead overhead;
  overhead.kube_reserved = {{karp::kResourceCpu, 80}, {karp::kResourceMemory, 512 * kMi}};
  return InstanceType::Make(
      "m5.large", {{std::string(karp::kLabelArch), "amd64"}},
      {{karp::kResourceCpu, 2000}, {karp::kResourceMemory, 8 * kGi}}, overhead,
      {Off("us-west-2a", kOnDemand, 0.096), Off("us-west-2b", kOnDemand, 0.096)});
}

}  // namespace

TEST_CASE("S-1 only what an overlay changes differs from the original instance type",
          "[node_overlay]") {
  const Catalog catalog = MakeCatalog({M5Large()});
  const InstanceType& original = *catalog->Find("m5.large");
  const NodeOverlay price = PriceOverlay("price", {ZoneIn({"us-west-2a"})}, "+0.01");
  const NodeOverlay capacity =
      CapacityOverlay("capacity", {TypeIn({"m5.large"})}, {{kHugepages2Mi, 100 * kMi}});
  SECTION("no overlays") { CHECK(CatalogOf(ApplyOne(catalog, {}), kPool) == catalog); }
  SECTION("price overlay only") {
    const NodeOverlayResult r = ApplyOne(catalog, {price});
    const InstanceType& it = TypeOf(r, kPool, "m5.large");
    CHECK_FALSE(it.offerings[0] == original.offerings[0]);
    CHECK(it.offerings[1] == original.offerings[1]);
    CHECK(it.requirements == original.requirements);
    CHECK(it.overhead == original.overhead);
    CHECK(it.capacity == original.capacity);
  }
  SECTION("capacity overlay only") {
    const NodeOverlayResult r = ApplyOne(catalog, {capacity});
    const InstanceType& it = TypeOf(r, kPool, "m5.large");
    CHECK(it.offerings == original.offerings);
    CHECK(it.requirements == original.requirements);
    CHECK(it.overhead == original.overhead);
    CHECK_FALSE(it.capacity == original.capacity);
  }
  SECTION("both") {
    const NodeOverlayResult r = ApplyOne(catalog, {price, capacity});
    const InstanceType& it = TypeOf(r, kPool, "m5.large");
    CHECK_FALSE(it.offerings[0] == original.offerings[0]);
    CHECK(it.offerings[1] == original.offerings[1]);
    CHECK(it.capacity.Get(kHugepages2Mi) == 100 * kMi);
    CHECK(it.requirements == original.requirements);
  }
}

TEST_CASE("S-2 a price overlay changes only the offerings it selects", "[node_overlay]") {
  const Catalog catalog = MakeCatalog({M5Large()});
  const NodeOverlayResult r =
      ApplyOne(catalog, {PriceOverlay("overlay", {ZoneIn({"us-west-2a"})}, "+0.01")});
  const InstanceType& it = TypeOf(r, kPool, "m5.large");
  CHECK(OfferingOf(it, "us-west-2a", kOnDemand).price == 0.106);
  CHECK(OfferingOf(it, "us-west-2a", kOnDemand).price_overlay_applied);
  CHECK(OfferingOf(it, "us-west-2b", kOnDemand).price == 0.096);
  CHECK_FALSE(OfferingOf(it, "us-west-2b", kOnDemand).price_overlay_applied);
  for (const Offering& o : catalog->Find("m5.large")->offerings) {
    CHECK(o.price == 0.096);
    CHECK_FALSE(o.price_overlay_applied);
  }
}

TEST_CASE("S-3 a capacity overlay adds hugepages and leaves memory", "[node_overlay]") {
  const Catalog catalog = MakeCatalog({M5Large()});
  const NodeOverlayResult r = ApplyOne(
      catalog, {CapacityOverlay("overlay", {TypeIn({"m5.large"})}, {{kHugepages2Mi, 100 * kMi}})});
  const InstanceType& it = TypeOf(r, kPool, "m5.large");
  CHECK(it.capacity.Get(kHugepages2Mi) == 100 * kMi);
  CHECK(it.capacity.memory() == 8 * kGi);
  CHECK(it.capacity.cpu() == 2000);
  CHECK_FALSE(catalog->Find("m5.large")->capacity.Has(kHugepages2Mi));
  CHECK_FALSE(catalog->Find("m5.large")->capacity_overlay_applied);
}

TEST_CASE("S-4 nodepools get their own price adjustments of a shared instance type",
          "[node_overlay]") {
  const Catalog catalog = MakeCatalog({InstanceType::Make(
      "m5.large", {}, {{karp::kResourceCpu, 2000}, {karp::kResourceMemory, 8 * kGi}},
      karp::Overhead{}, {Off("us-west-2a", kOnDemand, 0.096)})});
  const NodeOverlayResult r = Apply({Pool("nodepool-a"), Pool("nodepool-b")},
                                    {PriceOverlay("overlay-a", {PoolIn("nodepool-a")}, "+10%"),
                                     PriceOverlay("overlay-b", {PoolIn("nodepool-b")}, "-5%")},
                                    {{"nodepool-a", catalog}, {"nodepool-b", catalog}});
  CHECK(PriceOf(r, "nodepool-a", "m5.large", "us-west-2a", kOnDemand) ==
        Approx(0.1056).margin(1e-4));
  CHECK(PriceOf(r, "nodepool-b", "m5.large", "us-west-2a", kOnDemand) ==
        Approx(0.0912).margin(1e-4));
  CHECK(catalog->Find("m5.large")->offerings[0].price == 0.096);
  CHECK(CatalogOf(r, "nodepool-a") != CatalogOf(r, "nodepool-b"));
  CHECK(CatalogOf(r, "nodepool-a") != catalog);
}

TEST_CASE("S-5 a nodepool without instance types is unevaluated", "[node_overlay]") {
  const NodeOverlayResult r = Apply({Pool(kPool), Pool("unevaluated")}, {}, {{kPool, F0()}});
  CHECK(r.by_node_pool.count("unevaluated") == 0);
  CHECK(r.by_node_pool.count(kPool) == 1);
}

TEST_CASE("S-6 a capacity overlay on one instance type leaves the others and the prices",
          "[node_overlay]") {
  const auto m5 = [](std::string name, int64_t cpu, int64_t memory, double od, double spot) {
    return InstanceType::Make(
        std::move(name), {}, {{karp::kResourceCpu, cpu}, {karp::kResourceMemory, memory}},
        karp::Overhead{}, {Off("us-west-2a", kOnDemand, od), Off("us-west-2a", kSpot, spot)});
  };
  const Catalog catalog = MakeCatalog({m5("m5.large", 2000, 8 * kGi, 0.096, 0.0288),
                                       m5("m5.xlarge", 4000, 16 * kGi, 0.192, 0.0576)});
  // The reference stores the capacity for m5.large, then an offering update for its spot
  // offering alone (a no-op: the overlay has no price).
  const NodeOverlayResult r =
      ApplyOne(catalog, {CapacityOverlay("overlay", {TypeIn({"m5.large"}), CapacityTypeIn({kSpot})},
                                         {{kHugepages2Mi, 100 * kMi}}, 100)});
  const InstanceType& large = TypeOf(r, kPool, "m5.large");
  CHECK(large.capacity.Get(kHugepages2Mi) == 100 * kMi);
  CHECK_FALSE(large.PriceOverlayApplied());
  CHECK(large.offerings == catalog->Find("m5.large")->offerings);
  CHECK_FALSE(TypeOf(r, kPool, "m5.xlarge").capacity.Has(kHugepages2Mi));
  CHECK(TypeOf(r, kPool, "m5.xlarge") == *catalog->Find("m5.xlarge"));
  CHECK_FALSE(catalog->Find("m5.large")->capacity.Has(kHugepages2Mi));
}

TEST_CASE("cost suite L293 a weight-10000 price adjustment on a nodepool's spot offering",
          "[node_overlay]") {
  const Catalog catalog = MakeCatalog({Type(kDefaultType, {Off(kZone1, kSpot, 1.50)})});
  const NodeOverlayResult r =
      ApplyOne(catalog, {PriceOverlay("overlay", {PoolIn(kPool)}, "+2.5", 10000)});
  CHECK(Applied(r, "overlay"));
  CHECK(F0Price(r) == Approx(4.0));
}

// ---------------------------------------------------------------------------------------------
// Rules of §2 and §3 that no reference test case covers

TEST_CASE("reference rule: offerings are selected whether available or not", "[node_overlay]") {
  Offering unavailable = Off(kZone2, kSpot, 2.02);
  unavailable.available = false;
  const Catalog catalog = MakeCatalog(
      {Type(kDefaultType, {Off(kZone1, kSpot, 1.02), unavailable, Off(kZone1, kOnDemand, 3.02)})});
  // The type's own zones come from its available offerings: zone In [test-zone-2] does not
  // select it, but capacity-type In [spot] selects both spot offerings.
  const NodeOverlayResult r =
      ApplyOne(catalog, {PriceOverlay("overlay-zone", {ZoneIn({kZone2})}, "7", 20),
                         PriceOverlay("overlay-spot", {CapacityTypeIn({kSpot})}, "9")});
  CHECK(Applied(r, "overlay-zone"));
  CHECK(OutcomeOf(r, "overlay-zone").selected == 0);
  CHECK(Applied(r, "overlay-spot"));
  const InstanceType& it = TypeOf(r, kPool, kDefaultType);
  CHECK(OfferingOf(it, kZone1, kSpot).price == 9);
  CHECK(OfferingOf(it, kZone2, kSpot).price == 9);
  CHECK_FALSE(OfferingOf(it, kZone2, kSpot).available);
  CHECK(OfferingOf(it, kZone1, kOnDemand).price == 3.02);
}

TEST_CASE("reference rule: equal-weight price overlays outranked on an offering still conflict",
          "[node_overlay]") {
  const NodeOverlayResult r =
      ApplyOne(F0(), {PriceOverlay("overlay-high", {TypeIn({kDefaultType})}, "50", 20),
                      PriceOverlay("overlay-b", {TypeIn({kDefaultType})}, "5"),
                      PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, "6")});
  CHECK(Applied(r, "overlay-high"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(F0Price(r) == 50);
}

TEST_CASE("reference rule: overlays without a weight weigh 0 and conflict with each other",
          "[node_overlay]") {
  NodeOverlay a = PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, "6");
  NodeOverlay b = PriceOverlay("overlay-b", {TypeIn({kDefaultType})}, "5");
  NodeOverlay weighted = PriceOverlay("overlay-0", {TypeIn({kDefaultType})}, "7", 1);
  a.weight.reset();
  b.weight.reset();
  const NodeOverlayResult r = ApplyOne(F0(), {a, b, weighted});
  REQUIRE(r.overlays.size() == 3);
  CHECK(r.overlays[0].name == "overlay-0");  // weight 1 before unset ones
  CHECK(Applied(r, "overlay-0"));
  CHECK(Applied(r, "overlay-b"));
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(F0Price(r) == 7);
}

TEST_CASE("reference rule: capacity conflicts look only at the last stored overlay's resources",
          "[node_overlay]") {
  // Applied in the order z, y, x (names descending), all of weight 10: x meets y's names
  // ({buz}) only, so it is not reported, and its fuse is skipped (z set it first).
  const NodeOverlayResult r =
      ApplyOne(F0(), {CapacityOverlay("overlay-z", {TypeIn({kDefaultType})}, {{kFuse, 1}}),
                      CapacityOverlay("overlay-y", {TypeIn({kDefaultType})}, {{kBuz, 2}}),
                      CapacityOverlay("overlay-x", {TypeIn({kDefaultType})}, {{kFuse, 3}})});
  CHECK(Applied(r, "overlay-z"));
  CHECK(Applied(r, "overlay-y"));
  CHECK(Applied(r, "overlay-x"));
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 1);
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kBuz) == 2);
}

TEST_CASE("reference rule: an overlay with a price and a capacity is one unit", "[node_overlay]") {
  NodeOverlay both = PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, "8");
  both.capacity = {{kFuse, 2}};
  const NodeOverlayResult r =
      ApplyOne(F0(), {CapacityOverlay("overlay-b", {TypeIn({kDefaultType})}, {{kFuse, 1}}), both});
  CHECK(Conflicts(r, "overlay-a"));  // on fuse: its price is not applied either
  CHECK(F0Price(r) == 1.02);
  CHECK_FALSE(TypeOf(r, kPool, kDefaultType).PriceOverlayApplied());
  CHECK(TypeOf(r, kPool, kDefaultType).capacity.Get(kFuse) == 1);
}

// ---------------------------------------------------------------------------------------------
// karp's own contract

TEST_CASE("karp: a nodepool that no applied overlay changes keeps its input catalog object",
          "[node_overlay]") {
  const Catalog f0 = F0();
  const Catalog f6 = F6();
  const NodeOverlayResult r =
      Apply({Pool(kPool), Pool(kPoolTwo), Pool("pool-three")},
            {PriceOverlay("overlay-z", {PoolIn(kPool)}, "5"),
             PriceOverlay("overlay-a", {}, "6"),  // conflicts with overlay-z on default
             PriceOverlay("invalid", {Req(TooLongKey(), Operator::kNotIn, {"x"})}, "7")},
            {{kPool, f0}, {kPoolTwo, f0}, {"pool-three", f6}});
  CHECK(Applied(r, "overlay-z"));
  CHECK(Conflicts(r, "overlay-a"));
  CHECK(FailsRuntimeValidation(r, "invalid"));
  CHECK(CatalogOf(r, kPool) != f0);
  CHECK(F0Price(r, kPool) == 5);
  CHECK(CatalogOf(r, kPoolTwo) == f0);
  CHECK(CatalogOf(r, "pool-three") == f6);
}

TEST_CASE("karp: nodepools with the same catalog and the same changes share one output catalog",
          "[node_overlay]") {
  const Catalog catalog = F6();
  const NodeOverlayResult r =
      Apply({Pool("pool-a"), Pool("pool-b"), Pool("pool-c", {{"team", "x"}}), Pool("pool-d"),
             Pool("pool-e")},
            {PriceOverlay("everywhere", {TypeIn({kSmallType})}, "+1", 20),
             CapacityOverlay("only-d", {PoolIn("pool-d")}, {{kFuse, 1}}),
             PriceOverlay("only-e", {PoolIn("pool-e"), TypeIn({kSmallType})}, "+2", 10)},
            {{"pool-a", catalog},
             {"pool-b", catalog},
             {"pool-c", catalog},
             {"pool-d", catalog},
             {"pool-e", catalog}});
  CHECK(Applied(r, "everywhere"));
  CHECK(Applied(r, "only-d"));
  CHECK(Applied(r, "only-e"));  // lower weight: leaves small's price as "everywhere" set it
  const Catalog& a = CatalogOf(r, "pool-a");
  CHECK(a != catalog);
  CHECK(CatalogOf(r, "pool-b") == a);
  CHECK(CatalogOf(r, "pool-c") == a);  // other template labels, same changes
  CHECK(CatalogOf(r, "pool-d") != a);
  CHECK(TypeOf(r, "pool-d", kDefaultType).capacity.Get(kFuse) == 1);
  CHECK_FALSE(TypeOf(r, "pool-a", kDefaultType).capacity.Has(kFuse));
  // pool-e's changes equal pool-a's (the weight-10 change was outranked on every offering it
  // selected).
  CHECK(TypeOf(r, "pool-e", kSmallType) == TypeOf(r, "pool-a", kSmallType));
  CHECK(CatalogOf(r, "pool-e") == a);
}

TEST_CASE("karp: a hugepages capacity overlay reduces allocatable memory", "[node_overlay]") {
  const Catalog catalog = MakeCatalog({M5Large()});
  const InstanceType& original = *catalog->Find("m5.large");
  const NodeOverlayResult r = ApplyOne(
      catalog, {CapacityOverlay("overlay", {TypeIn({"m5.large"})}, {{kHugepages2Mi, 100 * kMi}})});
  const InstanceType& it = TypeOf(r, kPool, "m5.large");
  CHECK(original.Allocatable().memory() == 8 * kGi - 512 * kMi);
  CHECK(it.Allocatable().memory() == 8 * kGi - 512 * kMi - 100 * kMi);
  CHECK(it.Allocatable().Get(kHugepages2Mi) == 100 * kMi);
  CHECK(it.Allocatable().cpu() == original.Allocatable().cpu());
  CHECK(it.capacity.memory() == 8 * kGi);
}

TEST_CASE("karp: a capacity overlay replaces a same-named extended resource", "[node_overlay]") {
  const Catalog catalog = F6();
  const NodeOverlayResult r = ApplyOne(
      catalog, {CapacityOverlay("overlay", {TypeIn({kGpuType})}, {{"fake.com/vendor-a", 4}})});
  const InstanceType& it = TypeOf(r, kPool, kGpuType);
  CHECK(it.capacity.Get("fake.com/vendor-a") == 4);
  CHECK(it.Allocatable().Get("fake.com/vendor-a") == 4);
  CHECK(it.capacity.memory() == catalog->Find(kGpuType)->capacity.memory());
  CHECK(catalog->Find(kGpuType)->capacity.Get("fake.com/vendor-a") == 2);
}

TEST_CASE("karp: the conflict message names the other overlay the instance type and the nodepool",
          "[node_overlay]") {
  SECTION("price") {
    const NodeOverlayResult r =
        ApplyTwo(F0(), {PriceOverlay("overlay-b", {PoolIn(kPoolTwo)}, "5"),
                        PriceOverlay("overlay-a", {TypeIn({kDefaultType})}, "6")});
    const NodeOverlayOutcome& o = OutcomeOf(r, "overlay-a");
    CHECK(o.reason == karp::kNodeOverlayConflict);
    CHECK_THAT(o.message, Catch::StartsWith("conflict with another overlay"));
    CHECK_THAT(o.message, Catch::Contains("overlay-b"));
    CHECK_THAT(o.message, Catch::Contains(kDefaultType));
    CHECK_THAT(o.message, Catch::Contains(kPoolTwo));
    CHECK(o.selected == 0);
    CHECK(F0Price(r, kPool) == 1.02);  // applies nowhere, not even where it met no conflict
  }
  SECTION("capacity") {
    const NodeOverlayResult r =
        Apply({Pool("team-pool")},
              {CapacityOverlay("overlay-b", {TypeIn({kGpuBType})}, {{kFuse, 1}}),
               CapacityOverlay("overlay-a", {}, {{kFuse, 2}})},
              {{"team-pool", F6()}});
    const NodeOverlayOutcome& o = OutcomeOf(r, "overlay-a");
    CHECK(o.reason == karp::kNodeOverlayConflict);
    CHECK_THAT(o.message, Catch::StartsWith("conflict with another overlay"));
    CHECK_THAT(o.message, Catch::Contains("overlay-b"));
    CHECK_THAT(o.message, Catch::Contains(kGpuBType));
    CHECK_THAT(o.message, Catch::Contains("team-pool"));
    CHECK_FALSE(TypeOf(r, "team-pool", kDefaultType).capacity.Has(kFuse));
  }
}

TEST_CASE("karp: an overlay failing only runtime validation is reported and applies nowhere",
          "[node_overlay]") {
  // NotIn on a key no type has would select every type, were the overlay applied.
  const NodeOverlay o = PriceOverlay("overlay", {Req(TooLongKey(), Operator::kNotIn, {"x"})}, "5");
  CHECK(karp::ValidateNodeOverlay(o, karp::NodeOverlayChecks::kSchema).ok());
  CHECK_FALSE(karp::ValidateNodeOverlay(o).ok());
  const Catalog catalog = F6();
  const NodeOverlayResult r = ApplyOne(catalog, {o});
  const NodeOverlayOutcome& outcome = OutcomeOf(r, "overlay");
  CHECK(outcome.reason == karp::kNodeOverlayRuntimeValidation);
  CHECK_THAT(outcome.message, Catch::Contains("spec.requirements[0]"));
  CHECK(outcome.selected == 0);
  CHECK(CatalogOf(r, kPool) == catalog);
  // The same overlay with a valid key applies everywhere.
  const NodeOverlayResult valid = ApplyOne(
      catalog, {PriceOverlay("overlay", {Req("test.com/short", Operator::kNotIn, {"x"})}, "5")});
  CHECK(OutcomeOf(valid, "overlay").selected == 6);
}

TEST_CASE("karp: the input catalogs are not modified", "[node_overlay]") {
  const Catalog f6 = F6();
  const Catalog f3 = F3();
  const std::vector<InstanceType> f6_before = f6->instance_types();
  const std::vector<InstanceType> f3_before = f3->instance_types();
  const NodeOverlayResult r =
      Apply({Pool(kPool), Pool(kPoolTwo)},
            {PriceOverlay("price", {CapacityTypeIn({kSpot})}, "-50%"),
             PriceOverlay("absolute", {ZoneIn({kZone2})}, "9", 20),
             CapacityOverlay("capacity", {}, {{kFuse, 3}, {"fake.com/vendor-a", 7}})},
            {{kPool, f6}, {kPoolTwo, f3}});
  CHECK(Applied(r, "price"));
  CHECK(Applied(r, "absolute"));
  CHECK(Applied(r, "capacity"));
  CHECK(f6->instance_types() == f6_before);
  CHECK(f3->instance_types() == f3_before);
  for (const Catalog& c : {f6, f3}) {
    for (const InstanceType& it : c->instance_types()) {
      CHECK_FALSE(it.PriceOverlayApplied());
      CHECK_FALSE(it.capacity_overlay_applied);
      CHECK_FALSE(it.capacity.Has(kFuse));
    }
  }
  CHECK(PriceOf(r, kPool, kDefaultType, kZone1, kSpot) == 0.5);
  CHECK(PriceOf(r, kPool, kDefaultType, kZone2, kSpot) == 9);
  CHECK(TypeOf(r, kPoolTwo, kDefaultType).capacity.Get(kFuse) == 3);
}
