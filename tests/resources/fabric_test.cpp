// External fabric manager records: the claim's ownership lifetime, and
// bindings validated against a described topology (one case per rule, exact
// messages), their part of the program-cache identity, their lifetimes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/ops_kernel.hpp"
#include "tessel/operation.hpp"
#include "tessel/program_cache.hpp"

namespace tessel::test {
namespace {

TEST(FabricManagerClaim, AcquireUseReleaseAndScoped) {
  Kernel router(KernelKind::DataMovement, "router");
  FabricManagerClaim claim("ring", router);
  EXPECT_EQ(error_from<ValidationError>([&] { claim.use(); }),
            "FabricManagerClaim 'ring': use() while not held; acquire() it first");
  EXPECT_EQ(error_from<ValidationError>([&] { claim.release(); }),
            "FabricManagerClaim 'ring': release() while not held; acquire() it first");
  claim.acquire();
  EXPECT_TRUE(claim.held());
  EXPECT_EQ(error_from<ValidationError>([&] { claim.acquire(); }),
            "FabricManagerClaim 'ring': acquire() while already held; release() it first");
  claim.use();
  claim.use();
  claim.release();
  EXPECT_FALSE(claim.held());
  EXPECT_EQ(claim.uses(), 2u);
  EXPECT_EQ(claim.scoped([&] { return claim.held() ? 7 : 0; }), 7);
  EXPECT_FALSE(claim.held());
  EXPECT_THROW(claim.scoped([]() -> int { throw std::runtime_error("opaque call failed"); }), std::runtime_error);
  EXPECT_FALSE(claim.held()); // released even when the call throws
  EXPECT_EQ(claim.uses(), 4u);
  FabricManagerClaim copy = claim; // copies share the identity
  EXPECT_TRUE(copy == claim);
  EXPECT_FALSE(FabricManagerClaim("ring", router) == claim);
}

class FabricValidationTest : public testing::Test {
protected:
  void SetUp() override {
    op.add_kernel(OperationKernel{.kernel = router, .source = "void kernel_main() {}\n", .source_is_path = false});
    op.add_fabric_claim(claim);
    FabricTopology t;
    t.num_devices = 2;
    t.links = {{0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}};
    t.generated = {{0, 1, 1}};
    op.set_fabric_topology(t);
  }
  // Connections on both devices for every worker node: device 0 -> 1 on `link01`, 1 -> 0 on `link10`.
  ProgramRuntimeResources bound(uint32_t link01 = 0, uint32_t link10 = 0, std::string abi = "ring-v1",
                                std::vector<Lifetime> owners = {}) const {
    return ProgramRuntimeResources(
        {}, {}, {},
        {FabricConnectionBinding(claim, {{0, 1, launch, link01}, {1, 0, launch, link10}}, abi, std::move(owners))});
  }
  std::string error(std::vector<FabricConnectionBinding> bindings) {
    return error_from<ValidationError>(
        [&] { op.validate(ProgramRuntimeResources({}, {}, {}, std::move(bindings)), launch); });
  }

  Kernel router{KernelKind::DataMovement, "router"};
  FabricManagerClaim claim{"ring", router};
  Operation op{"allgather"};
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  const std::string at = "Operation 'allgather': runtime resources: ";
};

TEST_F(FabricValidationTest, AValidBindingPasses) { EXPECT_NO_THROW(op.validate(bound(), launch)); }

TEST_F(FabricValidationTest, ClaimNotDeclared) {
  FabricManagerClaim other("other", router);
  EXPECT_EQ(error({FabricConnectionBinding(other, {}, "x")}),
            at + "fabric_connections[0]: claim 'other' is not declared by operation 'allgather' (declare it with "
                 "add_fabric_claim)");
}

TEST_F(FabricValidationTest, OneBindingPerClaim) {
  const auto b = bound().fabric_connections()[0];
  EXPECT_EQ(error({b, b}), at + "fabric_connections[1]: claim 'ring' is already bound by fabric_connections[0]; supply "
                                "one binding per claim");
  EXPECT_EQ(error({}), at + "claim 'ring' has no binding in fabric_connections; supply one FabricConnectionBinding "
                            "per claim");
}

TEST_F(FabricValidationTest, DevicesMustBeActive) {
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 2, launch, 0}}, "x")}),
            at + "fabric_connections[0].connections[0]: device 2 is not an active logical device (the topology has "
                 "2: 0..1)");
}

TEST_F(FabricValidationTest, WorkerNodesInsideTheWorkerRange) {
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 1, CoreRange({0, 0}, {2, 0}), 0}}, "x")}),
            at + "fabric_connections[0].connections[0]: worker_nodes {(0,0)-(2,0)} are not inside the operation's "
                 "worker range {(0,0)-(1,0)}");
}

TEST_F(FabricValidationTest, LinkMustBeExposed) {
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 1, launch, 3}}, "x")}),
            at + "fabric_connections[0].connections[0]: link 3 from device 0 to device 1 is not exposed by the "
                 "topology (links from 0 to 1: 0, 1)");
}

TEST_F(FabricValidationTest, NoOverlapWithGeneratedManagersOrEachOther) {
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 1, launch, 1}}, "x")}),
            at + "fabric_connections[0].connections[0]: link 1 from device 0 to device 1 is owned by a generated "
                 "fabric manager; external managers must not overlap it");
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{1, 0, CoreCoord{0, 0}, 0}, {1, 0, CoreCoord{1, 0}, 0}}, "x")}),
            at + "fabric_connections[0].connections[1]: link 0 from device 1 to device 0 is also reserved by "
                 "fabric_connections[0].connections[0]");
}

TEST_F(FabricValidationTest, EveryDeviceAndWorkerNodeCovered) {
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 1, launch, 0}}, "x")}),
            at + "fabric_connections[0] (claim 'ring'): device 1 worker node (0,0) has no connection; the requirements "
                 "must cover every active logical device and worker node of Kernel 'router' (DataMovement)");
  EXPECT_EQ(error({FabricConnectionBinding(claim, {{0, 1, CoreCoord{0, 0}, 0}, {1, 0, launch, 0}}, "x")}),
            at + "fabric_connections[0] (claim 'ring'): device 0 worker node (1,0) has no connection; the requirements "
                 "must cover every active logical device and worker node of Kernel 'router' (DataMovement)");
}

TEST_F(FabricValidationTest, ClaimOfAnUndeclaredKernel) {
  Kernel stray(KernelKind::Compute, "stray");
  EXPECT_EQ(error_from<ValidationError>([&] { op.add_fabric_claim(FabricManagerClaim("x", stray)); }),
            "Operation 'allgather': add_fabric_claim('x'): Kernel 'stray' (Compute) is not bound to operation "
            "'allgather' (no operation declared it)");
  EXPECT_EQ(error_from<ValidationError>([&] { op.add_fabric_claim(claim); }),
            "Operation 'allgather': add_fabric_claim('ring'): the claim is already declared");
}

// The binding structure is part of the cache identity; its lifetimes are kept.
TEST_F(FabricValidationTest, CacheIdentityAndLifetimes) {
  auto device = open_device("blackhole", 2, 1);
  auto factory = [&](uint32_t link10, std::string abi, std::shared_ptr<int> owner) -> RuntimeResourceFactory {
    return [=, this](const auto&, const CoreRangeSet&, uint32_t) { return bound(0, link10, abi, {owner}); };
  };
  auto owner = std::make_shared<int>(1);
  op.run(*device, {}, launch, factory(0, "ring-v1", owner));
  op.run(*device, {}, launch, factory(0, "ring-v1", owner));
  EXPECT_EQ(device->program_cache().entries(), 1u);
  EXPECT_EQ(device->program_cache().hits(), 1u);
  op.run(*device, {}, launch, factory(1, "ring-v1", owner)); // another fixed link
  op.run(*device, {}, launch, factory(0, "ring-v2", owner)); // another ABI identity
  EXPECT_EQ(device->program_cache().entries(), 3u);
  std::weak_ptr<int> weak = owner;
  owner.reset();
  EXPECT_FALSE(weak.expired()); // the binding's owner is retained
}

// Claim identity is the claim, not its name: two claims both named "ring"
// that swap links are two structures (two cache entries), while giving each
// claim the same links again is a hit whatever order the bindings come in.
TEST(FabricCacheIdentity, ClaimsOfOneNameAreTwoIdentities) {
  Kernel router(KernelKind::DataMovement, "router");
  FabricManagerClaim east("ring", router), west("ring", router);
  Operation op("allgather");
  op.add_kernel(OperationKernel{.kernel = router, .source = "void kernel_main() {}\n", .source_is_path = false});
  op.add_fabric_claim(east);
  op.add_fabric_claim(west);
  FabricTopology t;
  t.num_devices = 2;
  t.links = {{0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}};
  op.set_fabric_topology(t);
  const CoreRangeSet launch = CoreRange({0, 0}, {1, 0});
  // Each claim's connections on both devices over `link`.
  auto on = [&](const FabricManagerClaim& claim, uint32_t link) {
    return FabricConnectionBinding(claim, {{0, 1, launch, link}, {1, 0, launch, link}}, "ring-v1");
  };
  auto factory = [](std::vector<FabricConnectionBinding> bindings) -> RuntimeResourceFactory {
    return [=](const auto&, const CoreRangeSet&, uint32_t) { return ProgramRuntimeResources({}, {}, {}, bindings); };
  };
  auto device = open_device("blackhole", 2, 1);
  const ProgramCache& cache = device->program_cache();
  op.run(*device, {}, launch, factory({on(east, 0), on(west, 1)}));
  op.run(*device, {}, launch, factory({on(west, 0), on(east, 1)})); // the same names and links in order, swapped claims
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.hits(), 0u);
  op.run(*device, {}, launch, factory({on(west, 1), on(east, 0)})); // the first structure, bindings reordered
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.hits(), 1u);
}

} // namespace
} // namespace tessel::test
