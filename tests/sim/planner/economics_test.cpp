// Goodput, power and cost: the closed forms (Young's interval, the first-order wall time, the host power
// share, the break-even premium) and the catalog's failure rates against the study they come from.
#include "sim/planner/economics.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace dpusim::planner;

TEST(Goodput, YoungsIntervalIsTheSquareRootOfTwiceTheWriteTimesTheMtbi) {
  EXPECT_DOUBLE_EQ(young_interval(100.0, 10800.0), std::sqrt(2.0 * 100.0 * 10800.0));
  EXPECT_NEAR(young_interval(50.0, 4.0 * 3600.0), 1200.0, 1e-9); // sqrt(2 x 50 x 14400) = 1200
  EXPECT_DOUBLE_EQ(young_interval(0.0, 3600.0), 0.0);
}

TEST(Goodput, WallTimeIsTheFirstOrderModel) {
  // W = 1e6 s, delta = 100 s, M = 3 h, R = 10 min, tau = 1200 s:
  // T = 1e6 (1 + 100/1200) / (1 - (600 + 600) / 10800) = 1.0833e6 / (8/9) = 1.21875e6 s.
  EXPECT_NEAR(wall_time(1e6, 100.0, 1200.0, 10800.0, 600.0), 1.21875e6, 1e-3);
  // Without interruptions only the checkpoints cost time; with interruptions taking all the time, never.
  EXPECT_DOUBLE_EQ(wall_time(1e6, 100.0, 1000.0, std::numeric_limits<double>::infinity(), 600.0), 1.1e6);
  EXPECT_TRUE(std::isinf(wall_time(1e6, 100.0, 1200.0, 1000.0, 600.0)));
}

TEST(Goodput, YoungsIntervalIsNearTheBestOfTheModel) {
  // For a write much shorter than the MTBI, Young's interval minimises the first-order wall time to within
  // a small fraction: any interval a quarter shorter or longer costs more.
  const double delta = 60.0, mtbi = 3.0 * 3600.0, restart = 900.0, work = 30.0 * 86400.0;
  const double tau = young_interval(delta, mtbi);
  const double best = wall_time(work, delta, tau, mtbi, restart);
  EXPECT_LT(best, wall_time(work, delta, 0.75 * tau, mtbi, restart));
  EXPECT_LT(best, wall_time(work, delta, 1.25 * tau, mtbi, restart));
}

TEST(Goodput, PointFiguresFollowFromTheModel) {
  const auto g = goodput(1e6, 50.0, 14400.0, 600.0, 10.0);
  EXPECT_NEAR(g.interval_s, 1200.0, 1e-9);
  EXPECT_NEAR(g.wall_s, wall_time(1e6, 50.0, 1200.0, 14400.0, 600.0), 1e-6);
  EXPECT_NEAR(g.interruptions, g.wall_s / 14400.0, 1e-9);
  EXPECT_NEAR(g.fraction, 1e6 / g.wall_s, 1e-12);
  // The interval is at least one step: a checkpoint is written between steps.
  EXPECT_DOUBLE_EQ(goodput(1e6, 0.0, 14400.0, 600.0, 10.0).interval_s, 10.0);
  // Interruptions faster than restarts: the run never ends, and its goodput is zero.
  const auto never = goodput(1e6, 50.0, 500.0, 600.0, 10.0);
  EXPECT_TRUE(std::isinf(never.wall_s));
  EXPECT_EQ(never.fraction, 0.0);
}

TEST(Goodput, CatalogRatesAddUpToTheLlama3Study) {
  // A job of 2,048 DGX H100 nodes (16,384 GPUs and as many ConnectX-7) meets the 419 unexpected
  // interruptions in 54 days of LLAMA3 Table 5: one every 54 x 24 / 419 = 3.093 hours.
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto* node = cat.node("dgx-h100");
  const auto* gpu = cat.gpu("h100-sxm");
  const auto* nic = cat.nic("connectx-7");
  ASSERT_TRUE(node && gpu && nic);
  ASSERT_TRUE(gpu->interruptions && nic->interruptions && node->interruptions &&
              node->network_interruptions && node->software_interruptions);
  const double per_s =
      16384 * gpu->interruptions->per_unit_per_s() + 16384 * nic->interruptions->per_unit_per_s() +
      2048 * (node->interruptions->per_unit_per_s() + node->network_interruptions->per_unit_per_s() +
              node->software_interruptions->per_unit_per_s());
  EXPECT_NEAR(1.0 / per_s / 3600.0, 54.0 * 24.0 / 419.0, 1e-9);
  // GPUs account for 268 of them (58.7% by the paper's reckoning, 64.0% by its counts).
  EXPECT_NEAR(16384 * gpu->interruptions->per_unit_per_s() / per_s, 268.0 / 419.0, 1e-12);
}

TEST(Power, HostPowerIsTheBusyCoresShareOfTdp) {
  // A GPU at TDP while its kernels run, idle otherwise: an H100 busy 60% of the step draws 88 + 612 x 0.6.
  EXPECT_DOUBLE_EQ(gpu_power_w(700.0, 88.0, 0.6), 88.0 + 612.0 * 0.6);
  EXPECT_DOUBLE_EQ(gpu_power_w(700.0, 88.0, 1.0), 700.0);
  EXPECT_DOUBLE_EQ(gpu_power_w(700.0, 88.0, 0.0), 88.0);
  EXPECT_DOUBLE_EQ(gpu_power_w(700.0, 700.0, 0.3), 700.0); // no idle figure: TDP throughout
  EXPECT_DOUBLE_EQ(host_power_w(700.0, 112, 2.8), 17.5);
  EXPECT_DOUBLE_EQ(host_power_w(700.0, 112, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(host_power_w(700.0, 112, 200.0), 700.0); // never above TDP
  // Each freed core lowers the node's power by TDP / cores.
  EXPECT_NEAR(host_power_w(700.0, 112, 10.0) - host_power_w(700.0, 112, 6.0), 4.0 * 700.0 / 112.0, 1e-12);
}

TEST(Power, OpticsAreATransceiverAtEachEndOfEveryLink) {
  // 4 NIC ports to leaves and 6 switch-to-switch links, 8 W at a NIC and 7.5 W at a switch port.
  EXPECT_DOUBLE_EQ(optics_power_w(4, 6, 8.0, 7.5), 4 * (8.0 + 7.5) + 6 * 2 * 7.5);
  EXPECT_DOUBLE_EQ(optics_power_w(4, 6, 0.0, 0.0), 0.0);
  // The catalog's transceivers: a switch's twin-port 2x400G multimode OSFP draws 15 W for its two 400G
  // ports (the QM9700's 400G ports take half each, the SN5600's 800G ports a whole one), a NIC's or
  // DPU's 400G module 8 W typical.
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto* qm = cat.network_switch("qm9700");
  const auto* sn = cat.network_switch("sn5600");
  ASSERT_TRUE(qm && sn && qm->optics_power && sn->optics_power);
  EXPECT_DOUBLE_EQ(qm->optics_power->value.si() * 2, 15.0);
  EXPECT_DOUBLE_EQ(sn->port_speed.value.si(), 2 * qm->port_speed.value.si());
  EXPECT_DOUBLE_EQ(sn->optics_power->value.si() / 2, qm->optics_power->value.si());
  for (const char* name : {"connectx-7", "bluefield-3"}) {
    const auto* d = cat.nic(name);
    ASSERT_TRUE(d && d->optics_power) << name;
    EXPECT_DOUBLE_EQ(d->optics_power->value.si(), 8.0) << name;
  }
}

TEST(Power, TheCatalogsIdleGpusDrawTheirMeasuredIdlePower) {
  // nvidia-smi at P0 with nothing running: H100 80GB 83 to 88 W (NCCL-1264), A100 80GB 59 to 62 W
  // (PEERREAD-40), the largest reading taken; a waiting GPU draws it, a busy one its TDP.
  const auto& cat = dpusim::testing::bundled_catalog();
  for (auto [name, idle, tdp] :
       {std::tuple{"h100-sxm", 88.0, 700.0}, std::tuple{"a100-sxm-80gb", 62.0, 400.0}}) {
    const auto* g = cat.gpu(name);
    ASSERT_TRUE(g && g->idle_power) << name;
    EXPECT_DOUBLE_EQ(g->idle_power->value.si(), idle) << name;
    EXPECT_DOUBLE_EQ(g->tdp.value.si(), tdp) << name;
    EXPECT_DOUBLE_EQ(gpu_power_w(tdp, idle, 0.5), (idle + tdp) / 2) << name;
  }
}

TEST(Cost, AtTheBreakEvenPremiumTheDpuRunCostsWhatTheNicRunDoes) {
  const double life = 5 * 365 * 86400.0, devices = 64;
  const double nodes = 8 * 300000.0, nic = 1500.0, dpu = 2500.0;
  const double capex_nic = nodes + devices * nic;
  const double t_nic = 20 * 86400.0, t_dpu = 18 * 86400.0; // the DPU run is faster
  const double e_nic = 30000.0, e_dpu = 28000.0;           // and uses less energy
  const double c_nic = capex_nic * t_nic / life + e_nic;
  // The DPU run as the plan priced it, then at the NIC's price plus the break-even premium.
  auto c_dpu = [&](double other_capex, double device_price, double running) {
    return (other_capex + devices * device_price) * t_dpu / life + running;
  };
  const double premium = break_even_premium(c_nic, c_dpu(nodes, dpu, e_dpu), dpu - nic, t_dpu, devices, life);
  EXPECT_NEAR(c_dpu(nodes, nic + premium, e_dpu), c_nic, 1e-6);
  EXPECT_GT(premium, 0.0);
  // The closed form of clusters that differ only in their devices: (C_nic - O_dpu) L / (n T) - K_nic / n.
  EXPECT_NEAR(premium, (c_nic - e_dpu) * life / (devices * t_dpu) - capex_nic / devices, 1e-6);
  // Running costs other than energy (busy host cores charged per hour) enter the same way.
  const double cores_dpu = 1000.0;
  const double with_cores = break_even_premium(c_nic + 3000.0, c_dpu(nodes, dpu, e_dpu + cores_dpu),
                                               dpu - nic, t_dpu, devices, life);
  EXPECT_NEAR(c_dpu(nodes, nic + with_cores, e_dpu + cores_dpu), c_nic + 3000.0, 1e-6);
  // A DPU cluster that buys fewer host cores: the saving raises the premium it may carry by saving / n.
  const double saved = 64000.0;
  const double leaner =
      break_even_premium(c_nic, c_dpu(nodes - saved, dpu, e_dpu), dpu - nic, t_dpu, devices, life);
  EXPECT_NEAR(c_dpu(nodes - saved, nic + leaner, e_dpu), c_nic, 1e-6);
  EXPECT_NEAR(leaner - premium, saved / devices, 1e-6);
  // A DPU run no faster and no leaner pays no premium.
  EXPECT_NEAR(break_even_premium(c_nic, c_nic + devices * (dpu - nic) * t_nic / life, dpu - nic, t_nic,
                                 devices, life),
              0.0, 1e-6);
}

TEST(Cost, AHostCoreNotKeptBusyIsNotBought) {
  // 112 cores a node, 4.2 busy: 5 kept, 107 not bought; a hair over a whole core is that core.
  EXPECT_DOUBLE_EQ(host_cores_not_bought(112, 4.2), 107.0);
  EXPECT_DOUBLE_EQ(host_cores_not_bought(112, 4.0 + 1e-12), 108.0);
  EXPECT_DOUBLE_EQ(host_cores_not_bought(112, 0.0), 112.0);
  EXPECT_DOUBLE_EQ(host_cores_not_bought(112, 200.0), 0.0); // never below none
  EXPECT_DOUBLE_EQ(host_cores_not_bought(0, 3.0), 0.0);
}

TEST(Cost, CloudBreakEvenIsPerDeviceHour) {
  // The NIC run costs 1000 USD more; over 64 devices for 100 hours that is 1000 / 6400 per device-hour.
  EXPECT_DOUBLE_EQ(break_even_per_device_hour(11000.0, 10000.0, 100 * 3600.0, 64), 1000.0 / 6400.0);
}

TEST(Power, ADgxH100AtFullLoadDrawsWhatItWasMeasuredToAndLessThanItsRating) {
  // LATIF24: an 8-GPU H100 node training with its GPUs near full power drew about 8.4 kW at most, against
  // 10.2 kW rated. Its GPUs at TDP, its NICs, its platform and a few busy host cores come to that.
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto* node = cat.node("dgx-h100");
  ASSERT_TRUE(node && node->platform_power);
  const auto* gpu = cat.gpu(node->gpu);
  const auto* nic = cat.nic(node->nic);
  const auto* cpu = cat.cpu(node->cpu);
  ASSERT_TRUE(gpu && nic && cpu && cpu->tdp);
  const int cores = cpu->cores.value * node->cpu_sockets.value;
  auto node_w = [&](double busy) {
    return node->gpus.value * gpu_power_w(gpu->tdp.value.si(), gpu->idle_power->value.si(), busy) +
           node->nics.value * nic->power.value.si() +
           host_power_w(cpu->tdp->value.si() * node->cpu_sockets.value, cores, 6.0) +
           node->platform_power->value.si();
  };
  EXPECT_NEAR(node_w(1.0), 8400.0, 0.02 * 8400.0);
  EXPECT_LT(node_w(1.0), node->power.value.si());
  // Waiting GPUs leave the platform's draw: a node is never near free to keep.
  EXPECT_GT(node_w(0.0), 0.35 * node_w(1.0));
  // Every bundled node says what the rest of it draws, below its rated maximum.
  for (const auto* name : {"dgx-h100", "dgx-a100", "dgx-a100-40gb"}) {
    const auto* n = cat.node(name);
    ASSERT_TRUE(n && n->platform_power) << name;
    EXPECT_LT(n->platform_power->value.si() + n->gpus.value * cat.gpu(n->gpu)->tdp.value.si(),
              n->power.value.si())
        << name;
  }
}

TEST(Power, ThePlatformsDrawGrowsWithTheNodesAndTheTimeTheyRun) {
  // Two points with the same GPU energy (the work is the same, done by twice the nodes in half the time
  // at equal efficiency) differ by nothing; where the larger one scales less than perfectly, its
  // platforms and idle GPUs add energy.
  auto point = [](int nodes, double days, double busy) {
    dpusim::report::VariantResult r;
    r.nodes = nodes;
    r.gpus = nodes * 8;
    r.set_value("plan.gpu_power_w", gpu_power_w(700.0, 88.0, busy) * r.gpus);
    r.set_value("plan.platform_power_w", 2600.0 * nodes);
    return point_economics(r, 1e12, days, std::nullopt, PowerSpec{1.0, std::nullopt, std::nullopt},
                           std::nullopt);
  };
  const auto small = point(64, 20.0, 0.6);
  const auto large = point(128, 10.0, 0.6);
  EXPECT_NEAR(*large.energy_mwh, *small.energy_mwh, 1e-9);
  const auto scaled_less = point(128, 11.0, 0.6 * 20.0 / 22.0); // 91% efficient: the same kernels, longer
  EXPECT_GT(*scaled_less.energy_mwh, *small.energy_mwh);
  // The platform alone: 64 nodes x 2.6 kW x 20 days.
  EXPECT_NEAR(*small.energy_mwh - 64 * 8 * gpu_power_w(700.0, 88.0, 0.6) * 20 * 24 / 1e6,
              64 * 2.6 * 20 * 24 / 1e3, 1e-6);
}
