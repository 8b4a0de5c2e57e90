#include "models/catalog/catalog.hpp"
#include "models/workload/transformer.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <limits>
#include <stdexcept>

using namespace dpusim;

namespace {
const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}
} // namespace

TEST(Catalog, LoadsTheRequiredEntries) {
  const auto& c = the_catalog();
  for (const char* g : {"a100-sxm-80gb", "h100-sxm"})
    EXPECT_NE(c.gpu(g), nullptr) << g;
  for (const char* n : {"dgx-a100", "dgx-h100"})
    EXPECT_NE(c.node(n), nullptr) << n;
  for (const char* n : {"connectx-7", "bluefield-3"})
    EXPECT_NE(c.nic(n), nullptr) << n;
  EXPECT_FALSE(c.cpu_names().empty());
  EXPECT_NE(c.model("gpt3-13b"), nullptr);
  EXPECT_NE(c.collective("nccl"), nullptr);
}

TEST(Catalog, ValuesCarryTheirUnitsAndSources) {
  const auto& c = the_catalog();
  const auto* h100 = c.gpu("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->peak_bf16.value.si(), 989e12);
  EXPECT_EQ(h100->peak_bf16.cite.kind, catalog::Citation::Kind::source);
  EXPECT_NE(h100->peak_bf16.cite.text.find("MLENG-ACC"), std::string::npos);
  EXPECT_DOUBLE_EQ(h100->nvlink_bandwidth.value.si(), 450e9);
  const auto* bf3 = c.nic("bluefield-3");
  ASSERT_NE(bf3, nullptr);
  ASSERT_TRUE(bf3->arm.has_value());
  EXPECT_EQ(bf3->arm->cores.value, 16);
  EXPECT_EQ(bf3->arm->base_clock.cite.kind, catalog::Citation::Kind::assumption);
}

TEST(Catalog, A100GemmTableIsRescaledToItsMeasuredCeiling) {
  const auto* a100 = the_catalog().gpu("a100-sxm-80gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_NEAR(a100->gemm.best().si(), 271.2e12, 1e9);
}

TEST(Catalog, EveryNodeReferencesExistingParts) {
  const auto& c = the_catalog();
  for (const auto& name : c.node_names()) {
    const auto* n = c.node(name);
    EXPECT_NE(c.gpu(n->gpu), nullptr);
    EXPECT_NE(c.cpu(n->cpu), nullptr);
    EXPECT_NE(c.nic(n->nic), nullptr);
  }
}

TEST(Catalog, EveryDpuThatRunsSnapSaysHowManyArmCoresItPollsWith) {
  // NVMe emulation (SNAP) is SPDK on the Arm cores: its parallelism is its core mask, a figure of the
  // DPU entry (cited or an assumption), never more than the Arm cores there are.
  const auto& c = the_catalog();
  int dpus = 0;
  for (const auto& name : c.nic_names()) {
    const auto* n = c.nic(name);
    if (!n->offloads.on_arm("storage"))
      continue;
    ++dpus;
    SCOPED_TRACE(name);
    ASSERT_TRUE(n->arm && n->arm->snap_cores);
    EXPECT_GE(n->arm->snap_cores->value, 1);
    EXPECT_LE(n->arm->snap_cores->value, n->arm->cores.value);
    EXPECT_FALSE(n->arm->snap_cores->cite.text.empty());
  }
  EXPECT_GE(dpus, 2);
  // BlueField-2: MLNX SNAP's default core mask 0xF0, four cores (SNAP-BF2-TUNE).
  const auto& bf2 = *c.nic("bluefield-2")->arm->snap_cores;
  EXPECT_EQ(bf2.value, 4);
  EXPECT_EQ(bf2.cite.kind, catalog::Citation::Kind::source);
  EXPECT_NE(bf2.cite.text.find("SNAP-BF2-TUNE"), std::string::npos);
}

TEST(Catalog, ReadsOneEntryOfEachKindAsTheLoaderDoes) {
  // Catalog::read_entry is what the loaders' fuzz target (fuzz/) reads a catalog entry with.
  const auto& c = the_catalog();
  for (const auto& kind : catalog::Catalog::kinds())
    for (const auto& e : std::filesystem::directory_iterator(c.directory() / kind)) {
      if (e.path().extension() == ".yaml") {
        EXPECT_NO_THROW(c.read_entry(kind, yaml::load_file(e.path().string()))) << e.path();
      }
    }
  const auto gpu = yaml::load_file((c.directory() / "gpu" / "h100-sxm.yaml").string());
  EXPECT_THROW(c.read_entry("cpu", gpu), InputError); // a GPU's keys are unknown to a CPU
  EXPECT_THROW(c.read_entry("gpus", gpu), std::invalid_argument);
}

TEST(Catalog, PortsOfAFarTooSlowLinkStayAnInt) {
  // Found by the loaders' fuzz target: 4 kb/s links on a 64-port 800 Gb/s switch are 1.28e10 ports.
  const auto* sw = the_catalog().network_switch("sn5600");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->ports_at(units::DataRate::from_si(4001.0 / 8)), std::numeric_limits<int>::max());
  EXPECT_EQ(sw->ports_at(sw->port_speed.value), sw->ports.value);
  EXPECT_EQ(sw->ports_at(sw->port_speed.value * 2), 0);
}

TEST(Catalog, AdaptiveRoutingNeedsASwitchThatCanAndANicThatPlacesOutOfOrderPacketsOnItsLinkLayer) {
  const auto& c = the_catalog();
  const auto* spectrum = c.network_switch("sn5600");
  const auto* quantum = c.network_switch("qm9700");
  ASSERT_NE(spectrum, nullptr);
  ASSERT_NE(quantum, nullptr);
  EXPECT_EQ(spectrum->link_layer, catalog::LinkLayer::ethernet);
  EXPECT_EQ(quantum->link_layer, catalog::LinkLayer::infiniband);
  EXPECT_TRUE(spectrum->adaptive_routing.value);
  EXPECT_TRUE(quantum->adaptive_routing.value);
  // Spectrum-X's RoCE adaptive routing: BlueField-3, not ConnectX-7; on InfiniBand, ConnectX-5 and later.
  EXPECT_TRUE(c.nic("bluefield-3")->places_out_of_order(catalog::LinkLayer::ethernet));
  EXPECT_FALSE(c.nic("connectx-7")->places_out_of_order(catalog::LinkLayer::ethernet));
  EXPECT_FALSE(c.nic("bluefield-2")->places_out_of_order(catalog::LinkLayer::ethernet));
  for (const char* nic : {"connectx-6", "connectx-7", "bluefield-2", "bluefield-3"})
    EXPECT_TRUE(c.nic(nic)->places_out_of_order(catalog::LinkLayer::infiniband)) << nic;
  EXPECT_FALSE(c.nic("connectx-7")->out_of_order_ethernet->cite.text.empty());
}

TEST(Catalog, CongestionSettingsCarryTheirSourcesAndScaleWithTheLineRate) {
  const auto& c = the_catalog();
  const auto* paper = c.congestion("dcqcn-paper");
  ASSERT_NE(paper, nullptr);
  ASSERT_TRUE(paper->dcqcn.has_value());
  EXPECT_DOUBLE_EQ(paper->dcqcn->k_max.value.si(), 200e3);
  EXPECT_NE(paper->dcqcn->p_max.cite.text.find("SWCC-CITES-DCQCN"), std::string::npos);
  EXPECT_EQ(paper->dcqcn->byte_counter->cite.kind, catalog::Citation::Kind::assumption);
  // No reference rate: the same thresholds at any line rate.
  EXPECT_DOUBLE_EQ(catalog::dcqcn_params(*paper, units::gbit_per_s(400)).k_min.si(), 5e3);

  const auto* mlx = c.congestion("dcqcn-mlx");
  ASSERT_NE(mlx, nullptr);
  const auto at400 = catalog::dcqcn_params(*mlx, units::gbit_per_s(400)); // 16 x the 25 Gb/s values
  EXPECT_DOUBLE_EQ(at400.k_min.si(), 1.6e6);
  EXPECT_DOUBLE_EQ(at400.k_max.si(), 6.4e6);
  EXPECT_DOUBLE_EQ(at400.rate_ai.si(), units::gbit_per_s(0.08).si());
  EXPECT_EQ(at400.byte_counter.si(), 0.0); // timer only
  EXPECT_TRUE(congestion::validate(at400).empty());

  const auto* pfc = c.congestion("pfc-only");
  ASSERT_NE(pfc, nullptr);
  EXPECT_FALSE(pfc->dcqcn.has_value());
  EXPECT_FALSE(catalog::dcqcn_params(*pfc, units::gbit_per_s(400)).enabled);
  // mlx5 headroom at 400 Gb/s, 10 m, 4096 B: (301 + 21.6) x 400 + 2.72 x 4096 = 140,181 B.
  const auto port = catalog::pfc_ingress_port(*pfc, units::gbit_per_s(400));
  EXPECT_NEAR(port.headroom.si(), 140181.12, 1e-3);
  EXPECT_NEAR(port.pause.xoff.si(), 4e6 - 140181.12, 1e-3);
  EXPECT_NEAR((port.pause.xoff - port.pause.xon).si(), 4096, 1e-9);
}

TEST(Catalog, ABadCongestionSettingIsRefusedAtItsLine) {
  const auto& c = the_catalog();
  const std::string good = "name: bad\n"
                           "description: test\n"
                           "rate_control: {value: true, source: HPCC-RUN}\n"
                           "k_min: {value: 300KB, source: HPCC-RUN}\n" // line 4: above k_max
                           "k_max: {value: 200KB, source: HPCC-RUN}\n"
                           "p_max: {value: 0.01, source: HPCC-RUN}\n"
                           "g: {value: 0.004, source: HPCC-RUN}\n"
                           "alpha_interval: {value: 50us, source: HPCC-RUN}\n"
                           "decrease_interval: {value: 50us, source: HPCC-RUN}\n"
                           "increase_timer: {value: 55us, source: HPCC-RUN}\n"
                           "rate_ai: {value: 40Mbps, source: HPCC-RUN}\n"
                           "rate_hai: {value: 200Mbps, source: HPCC-RUN}\n"
                           "fast_recovery_steps: {value: 5, source: HPCC-RUN}\n"
                           "min_rate: {value: 100Mbps, source: HPCC-RUN}\n"
                           "mtu: {value: 1000B, source: HPCC-RUN}\n"
                           "cable_length_m: {value: 10, source: HPCC-RUN}\n"
                           "port_buffer: {value: 1MB, source: HPCC-RUN}\n";
  auto line_of_error = [&](const std::string& text) {
    try {
      c.read_entry("congestion", yaml::parse_text(text, "bad.yaml"));
    } catch (const InputError& e) {
      return e.where().line;
    }
    return -1;
  };
  EXPECT_EQ(line_of_error(good), 4);
  std::string fixed = good;
  fixed.replace(fixed.find("300KB"), 5, "100KB");
  EXPECT_EQ(line_of_error(fixed), -1);
  EXPECT_EQ(line_of_error(fixed + "pmax: 0.2\n"), 18); // unknown key
  std::string off = fixed;
  off.replace(off.find("value: true"), 11, "value: false");
  EXPECT_EQ(line_of_error(off), 4); // DCQCN parameters without rate control
}

TEST(Catalog, TheBundledCatalogHasNoBrokenEntry) {
  for (const auto& b : the_catalog().broken())
    ADD_FAILURE() << b.kind << "/" << b.name << ": " << b.error.what();
}

TEST(Catalog, ABrokenEntryIsLeftOutAndRefusedWhereItIsUsed) {
  // A user's catalog with one bad file: the other entries serve; a lookup of the bad one throws its own
  // error (file and line), and a node built on it is left out with that error inside its own.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "dpusim-broken-catalog-test";
  fs::remove_all(dir);
  fs::copy(fs::path(DPUSIM_SOURCE_DIR) / "models/catalog/data", dir, fs::copy_options::recursive);
  std::ofstream(dir / "nic/mine.yaml") << "name: mine\ndescription: a NIC of my own\nline_rate: 400\n";
  std::ofstream(dir / "nic/connectx-6.yaml") << ",\n";
  const auto c = catalog::Catalog::load(dir);
  fs::remove_all(dir);
  EXPECT_NE(c.nic("connectx-7"), nullptr);
  EXPECT_NE(c.node("dgx-h100"), nullptr);
  ASSERT_EQ(c.broken().size(), 4u); // mine, connectx-6, and the two DGX A100 nodes built on it
  const auto error_of = [](auto lookup) -> std::string {
    try {
      (void)lookup();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const auto mine = error_of([&] { return c.nic("mine"); });
  EXPECT_NE(mine.find("nic/mine.yaml:"), std::string::npos) << mine;
  const auto cx6 = error_of([&] { return c.nic("connectx-6"); });
  EXPECT_NE(cx6.find("nic/connectx-6.yaml:1:1: error: invalid YAML"), std::string::npos) << cx6;
  const auto node = error_of([&] { return c.node("dgx-a100"); });
  EXPECT_NE(node.find("node/dgx-a100.yaml: error: nic: its nic entry \"connectx-6\" cannot be read: "),
            std::string::npos)
      << node;
  EXPECT_EQ(c.nic("no-such-nic"), nullptr); // a name with no file at all is simply not there
  for (const auto& n : c.nic_names())
    EXPECT_NE(n, "mine");
}

TEST(Catalog, EachGpuSaysTheFormatsItRunsAndTheirMeasuredSpeedup) {
  using workload::Precision;
  const auto& c = the_catalog();
  const auto speedup = [](const catalog::GpuSpec* g, Precision p) {
    return g->gemm_speedup.at(static_cast<std::size_t>(p));
  };
  const auto* h100 = c.gpu("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->precisions(), "bf16, fp16, fp8, fp8-cs");
  ASSERT_TRUE(speedup(h100, Precision::fp8));
  EXPECT_DOUBLE_EQ(speedup(h100, Precision::fp8)->value, 1.765); // MAMF 1402.6 / 794.5, not the peaks' 2
  EXPECT_EQ(speedup(h100, Precision::fp8)->cite.kind, catalog::Citation::Kind::source);
  EXPECT_DOUBLE_EQ(speedup(h100, Precision::fp8_cs)->value, 1.765); // the same tensor cores
  EXPECT_FALSE(speedup(h100, Precision::mxfp8));
  EXPECT_EQ(h100->peak(Precision::nvfp4), nullptr);
  EXPECT_DOUBLE_EQ(speedup(h100, Precision::bf16)->value, 1.0);
  const auto* a100 = c.gpu("a100-sxm-80gb");
  EXPECT_EQ(a100->precisions(), "bf16, fp16");
  const auto* b200 = c.gpu("b200-sxm");
  EXPECT_EQ(b200->precisions(), "bf16, fp16, fp8, fp8-cs, mxfp8, nvfp4");
  EXPECT_DOUBLE_EQ(b200->peak(Precision::nvfp4)->value.si(), 9000e12);
  EXPECT_EQ(speedup(b200, Precision::nvfp4)->cite.kind, catalog::Citation::Kind::assumption);
  EXPECT_GT(speedup(b200, Precision::nvfp4)->value, speedup(b200, Precision::mxfp8)->value);
}

TEST(Catalog, AGpusSpeedupsAreTheirPeaksRatioUnlessMeasuredAndOnlyForFormatsItHas) {
  const auto& c = the_catalog();
  std::ifstream file(c.directory() / "gpu" / "h100-sxm.yaml");
  const std::string entry((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto read = [&](const std::string& replace_from, const std::string& replace_to) {
    std::string t = entry;
    const auto at = t.find(replace_from);
    EXPECT_NE(at, std::string::npos) << replace_from;
    t.replace(at, replace_from.size(), replace_to);
    c.read_entry("gpu", yaml::parse_text(t, (c.directory() / "gpu" / "mine.yaml").string()));
  };
  EXPECT_THROW(read("fp8: {value: 1.765", "nvfp4: {value: 3.5"), InputError); // no nvfp4 peak
  EXPECT_THROW(read("fp8: {value: 1.765", "fp16: {value: 1.1"), InputError);  // not a low precision
  EXPECT_NO_THROW(read("fp8: {value: 1.765", "fp8: {value: 1.7"));
}

TEST(Catalog, FineGrainedExpertModelsHaveTheirPublishedTotalAndActiveParameters) {
  // QWEN3-TR Table 2: Qwen3-235B-A22B 235B total, 22B active; Qwen3-30B-A3B 30.5B, 3.3B. Active: the
  // dense part and top_k of each layer's experts.
  struct Case {
    const char* name;
    double total;
    double active;
  };
  for (const auto& c : {Case{"qwen3-235b-a22b", 235e9, 22e9}, Case{"qwen3-30b-a3b", 30.5e9, 3.3e9}}) {
    const auto& m = the_catalog().model(c.name)->shape;
    const double total = dpusim::workload::parameter_count(m, 4096);
    const double idle_experts = m.layers * dpusim::workload::expert_parameter_count(m) *
                                (1.0 - static_cast<double>(m.top_k) / m.experts);
    EXPECT_NEAR(total / c.total, 1.0, 0.01) << c.name << ": " << total;
    EXPECT_NEAR((total - idle_experts) / c.active, 1.0, 0.02) << c.name << ": " << total - idle_experts;
    EXPECT_DOUBLE_EQ(dpusim::workload::active_parameter_count(m, 4096), total - idle_experts) << c.name;
  }
}

TEST(Catalog, LatentAttentionModelsHaveTheirPublishedTotalAndActiveParameters) {
  // DSV3-CONFIG: DeepSeek-V3's main model 671B, 36.6B activated counting the output head but not the
  // token embedding (a lookup); KIMI-K2-TR: Kimi K2 1.04T total, 32B activated. The same modules count
  // 1.026T for Kimi K2's configuration (KIMI-K2-CONFIG), 1.3% below the report's figure, which is not
  // broken down.
  // Its multi-token prediction module: 11.5B parameters of its own (the embedding and output head shared).
  const auto& ds = the_catalog().model("deepseek-v3")->shape;
  EXPECT_EQ(ds.mtp_layers, 1);
  auto main_model = ds;
  main_model.mtp_layers = 0;
  const double ds_embedding = static_cast<double>(ds.vocab) * ds.hidden;
  EXPECT_NEAR(dpusim::workload::parameter_count(main_model, 4096) / 671e9, 1.0, 0.002);
  EXPECT_NEAR((dpusim::workload::active_parameter_count(main_model, 4096) - ds_embedding) / 36.6e9, 1.0,
              0.005);
  EXPECT_NEAR(
      (dpusim::workload::parameter_count(ds, 4096) - dpusim::workload::parameter_count(main_model, 4096)) /
          11.5e9,
      1.0, 0.015);
  const auto& kimi = the_catalog().model("kimi-k2")->shape;
  EXPECT_NEAR(dpusim::workload::parameter_count(kimi, 4096) / 1.04e12, 1.0, 0.015);
  EXPECT_NEAR(dpusim::workload::active_parameter_count(kimi, 4096) / 32e9, 1.0, 0.03);
}

TEST(Catalog, InterleavedAndSlidingWindowModelsHaveTheirPublishedTotalAndActiveParameters) {
  // GPT-OSS-CARD: gpt-oss-120b 116.83B total, 5.13B active (the unembedding counted, the embedding
  // not); LLAMA4-BLOG: Llama 4 Maverick 400B total, 17B active, experts in every other layer.
  const auto& oss = the_catalog().model("gpt-oss-120b")->shape;
  const double oss_embedding = static_cast<double>(oss.vocab) * oss.hidden;
  EXPECT_NEAR(dpusim::workload::parameter_count(oss, 4096) / 116.83e9, 1.0, 0.003);
  EXPECT_NEAR((dpusim::workload::active_parameter_count(oss, 4096) - oss_embedding) / 5.13e9, 1.0, 0.01);
  EXPECT_TRUE(oss.sliding_layer(0));
  EXPECT_FALSE(oss.sliding_layer(1));
  const auto& maverick = the_catalog().model("llama4-maverick")->shape;
  EXPECT_NEAR(dpusim::workload::parameter_count(maverick, 4096) / 400e9, 1.0, 0.01);
  EXPECT_NEAR(dpusim::workload::active_parameter_count(maverick, 4096) / 17e9, 1.0, 0.03);
  EXPECT_TRUE(maverick.dense_layer(0));
  EXPECT_FALSE(maverick.dense_layer(1));
  // Chunked attention in three layers of four (LLAMA4-HF-MODELING), every fourth attends to all.
  EXPECT_EQ(maverick.attention_chunk, 8192);
  EXPECT_TRUE(maverick.sliding_layer(2));
  EXPECT_FALSE(maverick.sliding_layer(3));
}
