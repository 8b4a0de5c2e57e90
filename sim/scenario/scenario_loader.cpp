#include "sim/scenario/scenario_loader.hpp"

#include "models/core/text_distance.hpp"
#include "models/workload/transformer_reader.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>

namespace dpusim::scenario {
namespace {

std::string catalog_name(const yaml::Node& node, const std::vector<std::string>& valid,
                         std::string_view what) {
  const std::string name = node.as_string();
  if (std::find(valid.begin(), valid.end(), name) != valid.end())
    return name;
  const std::string hint = did_you_mean(name, valid);
  node.fail(fmt::format("no {} named \"{}\" in the catalog{}; valid: {}", what, name,
                        hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                        join(valid)));
}

FabricConfig read_fabric(yaml::Map m, const catalog::Catalog& cat) {
  m.declare({"topology", "tiers", "link", "latency", "oversubscription", "core_oversubscription", "switch"});
  FabricConfig f;
  const std::string topo = m.required("topology").as_choice({"fat-tree", "rail-optimized"});
  f.kind = topo == "fat-tree" ? topology::FabricKind::fat_tree : topology::FabricKind::rail_optimized;
  if (auto t = m.optional("tiers"))
    f.tiers = static_cast<int>(t->as_int(2, 3));
  f.link = m.required("link", "a data rate such as 400Gbps").as_quantity<units::DataRate>();
  f.latency = m.required("latency", "a duration such as 1us").as_quantity<units::Seconds>(true);
  auto ratio = [](const yaml::Node& o) {
    const std::string text = o.as_string();
    double r = 1.0;
    try {
      r = units::parse_ratio(text);
    } catch (const units::UnitError& e) {
      o.fail(e.what());
    }
    if (r < 1.0)
      o.fail(fmt::format("must be at least 1:1 (down-links to up-links), found \"{}\"", text));
    return r;
  };
  if (auto o = m.optional("oversubscription"))
    f.oversubscription = ratio(*o);
  if (auto o = m.optional("core_oversubscription")) {
    if (f.tiers == 2)
      o->fail("core_oversubscription applies to the core tier of a three-tier fabric; set tiers: 3");
    f.core_oversubscription = ratio(*o);
  }
  f.switch_model = "sn5600";
  if (auto s = m.optional("switch"))
    f.switch_model = catalog_name(*s, cat.switch_names(), "switch");
  m.finish();
  return f;
}

ClusterConfig read_cluster(yaml::Map m, const catalog::Catalog& cat) {
  m.declare({"nodes", "gpus_per_node", "node", "nic", "dpu", "fabric", "services", "storage", "tenants"});
  ClusterConfig c;
  c.nodes = static_cast<int>(m.required("nodes", "the number of nodes").as_int(1, 1 << 16));
  c.node = catalog_name(m.required("node", "a node type from the catalog"), cat.node_names(), "node");
  const auto* node = cat.node(c.node);
  c.gpus_per_node = node->gpus.value;
  if (auto g = m.optional("gpus_per_node"))
    c.gpus_per_node = static_cast<int>(g->as_int(1, node->gpus.value));
  c.nic = node->nic;
  if (auto n = m.optional("nic"))
    c.nic = catalog_name(*n, cat.nic_names(), "NIC");
  if (auto d = m.optional("dpu")) {
    c.dpu = catalog_name(*d, cat.nic_names(), "DPU");
    if (cat.nic(c.dpu)->kind != catalog::DeviceKind::dpu)
      d->fail(
          fmt::format("\"{}\" is a NIC, not a DPU; DPUs in the catalog: bluefield-2, bluefield-3", c.dpu));
  } else {
    // The DPU built around this NIC's ConnectX generation, if the catalog has one.
    for (const auto& name : cat.nic_names()) {
      const auto* device = cat.nic(name);
      if (device->kind == catalog::DeviceKind::dpu && (device->nic_core == c.nic || name == c.nic))
        c.dpu = name;
    }
  }
  const auto fabric_node = m.required("fabric");
  c.fabric = read_fabric(fabric_node.as_map(), cat);
  if (auto sv = m.optional("services")) {
    auto sm = sv->as_map();
    sm.declare({"encryption", "overlay", "agents"});
    if (auto e = sm.optional("encryption")) {
      const auto name = e->as_choice({"none", "ipsec", "tls"});
      c.services.encryption = name == "ipsec" ? offload::Encryption::ipsec
                              : name == "tls" ? offload::Encryption::tls
                                              : offload::Encryption::none;
    }
    if (auto o = sm.optional("overlay"))
      c.services.overlay = o->as_choice({"none", "vxlan"}) == "vxlan";
    if (auto a = sm.optional("agents")) {
      c.services.agent_cores = a->as_number(0, 4096);
      const int cores = cat.cpu(node->cpu)->cores.value * node->cpu_sockets.value;
      if (c.services.agent_cores > cores)
        a->fail(fmt::format("{:g} agent cores exceed the {} host cores of a {} ({} x {})",
                            c.services.agent_cores, cores, c.node, node->cpu_sockets.value, node->cpu));
    }
    sm.finish();
  }
  if (auto tn = m.optional("tenants")) {
    auto tm = tn->as_map();
    tm.declare({"flows", "isolation", "guarantee"});
    c.tenants.flows = static_cast<int>(
        tm.required("flows", "other tenants' bulk flows per leaf crossing the spines, e.g. 8")
            .as_int(1, 4096));
    if (auto iso = tm.optional("isolation"))
      c.tenants.dpu_qos = iso->as_choice({"shared", "dpu_qos"}) == "dpu_qos";
    if (auto g = tm.optional("guarantee")) {
      c.tenants.guarantee = g->as_number(0.0, 1.0);
      if (!(c.tenants.guarantee > 0 && c.tenants.guarantee < 1))
        g->fail("the guaranteed share of the up-links is a fraction strictly between 0 and 1, e.g. 0.6");
      if (!c.tenants.dpu_qos)
        g->fail("a guarantee needs isolation: dpu_qos (with plain sharing nothing is guaranteed)");
    }
    if (c.tenants.dpu_qos && c.dpu.empty())
      tn->fail("isolation: dpu_qos is enforced by DPUs: add cluster.dpu (e.g. bluefield-3)");
    if (c.tenants.dpu_qos && !tm.contains("guarantee"))
      (void)tm.required("guarantee", "the share of each leaf's up-links the DPUs leave this job, e.g. 0.75");
    tm.finish();
  }
  if (auto st = m.optional("storage")) {
    auto sm = st->as_map();
    sm.declare({"servers", "link", "read_rate", "write_rate", "client_connections", "fabric", "node_link"});
    c.storage.servers =
        static_cast<int>(sm.required("servers", "the number of storage servers").as_int(1, 1 << 16));
    c.storage.link =
        sm.required("link", "each server's port speed, e.g. 400Gbps").as_quantity<units::DataRate>();
    c.storage.read_rate = sm.required("read_rate", "each server's media read throughput, e.g. 25GB/s")
                              .as_quantity<units::DataRate>();
    c.storage.write_rate = c.storage.read_rate;
    if (auto wr = sm.optional("write_rate"))
      c.storage.write_rate = wr->as_quantity<units::DataRate>();
    if (auto fabric = sm.optional("fabric")) {
      c.storage.separate_fabric = fabric->as_choice({"shared", "separate"}) == "separate";
      if (c.storage.separate_fabric)
        c.storage.node_link = sm.required("node_link", "each node's storage port on the separate storage "
                                                       "fabric, e.g. 200Gbps")
                                  .as_quantity<units::DataRate>();
    }
    if (auto nl = sm.optional("node_link"); nl && !c.storage.separate_fabric)
      nl->fail("a node's storage port belongs to a separate storage fabric: give fabric: separate");
    if (auto cc = sm.optional("client_connections"))
      c.storage.client_connections = static_cast<int>(cc->as_int(1, 1024));
    sm.finish();
  }
  m.finish();
  // The fabric must be able to hold the cluster (radix, oversubscription, NIC speed).
  const auto* sw = cat.network_switch(c.fabric.switch_model);
  if (sw->ports_at(c.fabric.link) < 2)
    fabric_node.fail(fmt::format("a {} switch has no {} ports (its ports run at {})", sw->name,
                                 units::format(c.fabric.link), units::format(sw->port_speed.value)));
  const auto* nic = cat.nic(c.nic);
  if (nic->line_rate.value > c.fabric.link)
    fabric_node.fail(fmt::format("links of {} are slower than the {} NIC's {} port",
                                 units::format(c.fabric.link), nic->name,
                                 units::format(nic->line_rate.value)));
  if (!c.dpu.empty()) {
    const auto* dpu = cat.nic(c.dpu);
    if (dpu->line_rate.value > c.fabric.link)
      fabric_node.fail(fmt::format("links of {} are slower than the {} DPU's {} port",
                                   units::format(c.fabric.link), dpu->name,
                                   units::format(dpu->line_rate.value)));
  }
  try {
    (void)topology::fabric_shape(cluster_layout(c, *node, *cat.gpu(node->gpu), *nic, *sw));
  } catch (const std::invalid_argument& e) {
    fabric_node.fail(e.what());
  }
  return c;
}

workload::TransformerShape read_model(const yaml::Node& node, const catalog::Catalog& cat,
                                      std::string& origin) {
  if (node.is_map()) {
    auto m = node.as_map();
    std::string name = "inline";
    if (auto n = m.optional("name"))
      name = n->as_string();
    auto shape = workload::read_transformer_shape(m, name);
    m.finish();
    origin = "inline";
    return shape;
  }
  origin = "catalog";
  return cat.model(catalog_name(node, cat.model_names(), "model"))->shape;
}

WorkloadConfig read_workload(yaml::Map m, const catalog::Catalog& cat, const ClusterConfig& cluster,
                             const yaml::Node& cluster_node) {
  m.declare({"model", "seq_len", "global_batch", "micro_batch", "parallelism", "precision", "recompute",
             "sequence_parallel", "attention", "overlap_grad_reduce", "overlap_param_gather", "overlap_p2p",
             "grad_reduce_dtype", "grad_bucket", "zero", "zero_buffers", "data", "communication",
             "checkpoint"});
  WorkloadConfig w;
  const auto model_node = m.required("model", "a model name from the catalog or an inline model");
  w.model = read_model(model_node, cat, w.model_origin);
  w.seq_len = static_cast<int>(m.required("seq_len", "the sequence length in tokens").as_int(1, 1 << 24));
  const auto gb = m.required("global_batch", "sequences per iteration");
  w.global_batch = static_cast<int>(gb.as_int(1, 1 << 30));
  const auto mb = m.required("micro_batch", "sequences per micro-batch");
  w.micro_batch = static_cast<int>(mb.as_int(1, 1 << 20));
  const auto par_node = m.required("parallelism", "{tp: ..., pp: ..., dp: ...}");
  {
    auto p = par_node.as_map();
    p.declare({"tp", "pp", "dp", "ep", "cp", "virtual_stages", "first_stage_layers", "last_stage_layers"});
    w.parallelism.tp = static_cast<int>(p.required("tp", "the tensor-parallel degree").as_int(1, 1 << 16));
    if (auto pp = p.optional("pp"))
      w.parallelism.pp = static_cast<int>(pp->as_int(1, 1 << 16));
    w.parallelism.dp = static_cast<int>(p.required("dp", "the data-parallel degree").as_int(1, 1 << 20));
    if (auto cp = p.optional("cp")) {
      w.parallelism.cp = static_cast<int>(cp->as_int(1, 1 << 16));
      if (w.seq_len % (2 * w.parallelism.cp) != 0)
        cp->fail(
            fmt::format("seq_len = {} must be a multiple of 2 x cp = {} (each context-parallel rank holds "
                        "two chunks of every sequence, balancing the causal mask)",
                        w.seq_len, 2 * w.parallelism.cp));
    }
    if (auto ep = p.optional("ep")) {
      w.parallelism.ep = static_cast<int>(ep->as_int(1, 1 << 16));
      if (w.parallelism.ep > 1 && !w.model.moe())
        ep->fail("expert parallelism (ep > 1) needs a mixture-of-experts model (experts, top_k, expert_ffn)");
      if (w.parallelism.dp % w.parallelism.ep != 0)
        ep->fail(fmt::format("ep = {} must divide dp = {} (expert-parallel groups are made of data-parallel "
                             "ranks)",
                             w.parallelism.ep, w.parallelism.dp));
      if (w.model.moe() && w.model.experts % w.parallelism.ep != 0)
        ep->fail(
            fmt::format("ep = {} must divide the model's {} experts", w.parallelism.ep, w.model.experts));
    }
    if (auto v = p.optional("virtual_stages")) {
      w.virtual_stages = static_cast<int>(v->as_int(1, 1 << 10));
      if (w.virtual_stages > 1 && w.parallelism.pp < 2)
        v->fail("interleaving (virtual_stages > 1) needs pipeline parallelism (pp > 1)");
    }
    // Uneven pipeline stages: the first and/or last stage hold a given number of layers, the others
    // share the rest evenly.
    auto& par = w.parallelism;
    for (const auto* key : {"first_stage_layers", "last_stage_layers"})
      if (auto n = p.optional(key)) {
        const int layers = static_cast<int>(n->as_int(1, 1 << 20));
        (std::string_view(key) == "first_stage_layers" ? par.first_stage_layers : par.last_stage_layers) =
            layers;
        if (par.pp < 2)
          n->fail(fmt::format("{} needs pipeline parallelism (pp > 1)", key));
        if (layers < w.virtual_stages)
          n->fail(
              fmt::format("{} = {} leaves a model chunk of that stage without a layer (virtual_stages = {})",
                          key, layers, w.virtual_stages));
      }
    if (par.first_stage_layers > 0 || par.last_stage_layers > 0) {
      const int fixed = par.first_stage_layers + par.last_stage_layers;
      const int rest = par.pp - (par.first_stage_layers > 0 ? 1 : 0) - (par.last_stage_layers > 0 ? 1 : 0);
      const int left = w.model.layers - fixed;
      if (rest == 0 ? left != 0 : (left < rest * w.virtual_stages || left % rest != 0))
        par_node.fail(fmt::format(
            "the model's {} layers less the first and last stages' {} leave {} for the other {} stages: {}",
            w.model.layers, fixed, left, rest,
            rest == 0 ? "with pp = 2 the two counts must add up to the model's layers"
                      : fmt::format("they must share them evenly, at least {} each", w.virtual_stages)));
    }
    p.finish();
  }
  w.precision = workload::Precision::bf16;
  if (auto p = m.optional("precision")) {
    const auto s = p->as_choice({"bf16", "fp16", "fp8"});
    w.precision = s == "bf16"   ? workload::Precision::bf16
                  : s == "fp16" ? workload::Precision::fp16
                                : workload::Precision::fp8;
  }
  if (auto r = m.optional("recompute")) {
    const auto s = r->as_choice({"none", "selective", "full"});
    w.recompute = s == "none"        ? workload::Recompute::none
                  : s == "selective" ? workload::Recompute::selective
                                     : workload::Recompute::full;
  }
  if (auto s = m.optional("sequence_parallel"))
    w.sequence_parallel = s->as_bool();
  if (auto a = m.optional("attention"))
    w.attention = a->as_choice({"flash", "unfused"}) == "flash" ? workload::AttentionKernel::flash
                                                                : workload::AttentionKernel::unfused;
  if (auto o = m.optional("overlap_grad_reduce"))
    w.overlap_grad_reduce = o->as_bool();
  if (auto o = m.optional("overlap_param_gather"))
    w.overlap_param_gather = o->as_bool();
  if (auto o = m.optional("overlap_p2p"))
    w.overlap_p2p = o->as_bool();
  if (auto g = m.optional("grad_reduce_dtype"))
    w.grad_bytes_per_param = g->as_choice({"fp32", "bf16", "fp16"}) == "fp32" ? 4.0 : 2.0;
  // Megatron-LM's default bucket: max(40M, 1M x dp) parameters.
  w.grad_bucket = units::bytes(std::max(40e6, 1e6 * w.parallelism.dp) * w.grad_bytes_per_param);
  if (auto b = m.optional("grad_bucket"))
    w.grad_bucket = b->as_quantity<units::Bytes>();
  if (auto z = m.optional("zero"))
    w.zero_stage = static_cast<int>(z->as_int(0, 3));
  if (auto b = m.optional("zero_buffers")) {
    w.zero_per_peer_buffers = b->as_choice({"flat", "per_peer"}) == "per_peer";
    if (w.zero_per_peer_buffers && w.zero_stage < 3)
      b->fail("zero_buffers: per_peer describes ZeRO-3's parameter gathers and gradient reduce-scatters; "
              "set zero: 3 or remove the key");
  }
  if (auto c = m.optional("communication")) {
    auto cm = c->as_map();
    cm.declare({"algorithm", "socket_threads"});
    if (auto a = cm.optional("algorithm"))
      w.collective_algorithm = a->as_choice({"ring", "tree", "hierarchical", "nvls"});
    if (auto t = cm.optional("socket_threads"))
      w.socket_threads = static_cast<int>(t->as_int(1, 64));
    cm.finish();
  }
  if (auto d = m.optional("data")) {
    auto dm = d->as_map();
    dm.declare({"sample", "decode", "workers", "prefetch"});
    DataConfig dc;
    dc.sample = dm.required("sample", "bytes read from storage per sample, e.g. 110KiB")
                    .as_quantity<units::Bytes>(true);
    dc.decode = dm.required("decode", "host core time to decode one sample, e.g. 4ms")
                    .as_quantity<units::Seconds>(true);
    dc.workers = static_cast<int>(
        dm.required("workers", "loader processes per data-parallel replica").as_int(1, 1024));
    if (auto pf = dm.optional("prefetch"))
      dc.prefetch = static_cast<int>(pf->as_int(1, 1 << 16));
    dm.finish();
    if (dc.sample.si() > 0 && cluster.storage.servers == 0)
      d->fail(fmt::format("reading {} per sample needs storage servers: add cluster.storage {{servers, link, "
                          "read_rate}} (cluster at {}:{})",
                          units::format(dc.sample), cluster_node.location().line,
                          cluster_node.location().column));
    w.data = dc;
  }
  if (auto ck = m.optional("checkpoint")) {
    auto cm = ck->as_map();
    cm.declare({"every", "mode", "size"});
    CheckpointConfig c;
    c.every =
        static_cast<int>(cm.required("every", "iterations between checkpoints, e.g. 500").as_int(1, 1 << 30));
    if (auto mode = cm.optional("mode"))
      c.async = mode->as_choice({"sync", "async"}) == "async";
    if (auto size = cm.optional("size"))
      c.size = size->as_quantity<units::Bytes>();
    cm.finish();
    if (cluster.storage.servers == 0)
      ck->fail(fmt::format("checkpoints are written to storage servers: add cluster.storage {{servers, link, "
                           "read_rate}} (cluster at {}:{})",
                           cluster_node.location().line, cluster_node.location().column));
    w.checkpoint = c;
  }
  m.finish();

  // Consistency of the parallel layout with the cluster and the model.
  const auto* node = cat.node(cluster.node);
  const int gpus = cluster.nodes * cluster.gpus_per_node;
  const auto& p = w.parallelism;
  if (p.world() != static_cast<double>(gpus))
    par_node.fail(
        fmt::format("{} = {} GPUs, but the cluster has {} nodes x {} GPUs = {} (cluster at {}:{})",
                    p.cp > 1 ? fmt::format("tp x cp x pp x dp = {} x {} x {} x {}", p.tp, p.cp, p.pp, p.dp)
                             : fmt::format("tp x pp x dp = {} x {} x {}", p.tp, p.pp, p.dp),
                    fmt::format("{:.0f}", p.world()), cluster.nodes, cluster.gpus_per_node, gpus,
                    cluster_node.location().line, cluster_node.location().column));
  if (w.model.heads % p.tp != 0)
    par_node.fail(fmt::format("tp = {} must divide the model's {} attention heads", p.tp, w.model.heads));
  if (w.model.kv_heads % p.tp != 0 && p.tp % w.model.kv_heads != 0)
    par_node.fail(
        fmt::format("tp = {} and the model's {} kv heads must divide one another", p.tp, w.model.kv_heads));
  if (w.model.ffn % p.tp != 0)
    par_node.fail(fmt::format("tp = {} must divide the feed-forward size {}", p.tp, w.model.ffn));
  if (w.model.moe() && w.model.expert_ffn % p.tp != 0)
    par_node.fail(
        fmt::format("tp = {} must divide the experts' feed-forward size {}", p.tp, w.model.expert_ffn));
  const bool uneven = p.first_stage_layers > 0 || p.last_stage_layers > 0;
  if (!uneven && w.model.layers % (p.pp * w.virtual_stages) != 0)
    par_node.fail(w.virtual_stages > 1
                      ? fmt::format("pp x virtual_stages = {} x {} must divide the model's {} layers", p.pp,
                                    w.virtual_stages, w.model.layers)
                      : fmt::format("pp = {} must divide the model's {} layers", p.pp, w.model.layers));
  if (w.virtual_stages > 1 && w.micro_batches() % p.pp != 0)
    gb.fail(fmt::format("the interleaved schedule needs a number of micro-batches per replica ({}) that is a "
                        "multiple of pp = {}",
                        w.micro_batches(), p.pp));
  if (w.global_batch % (w.micro_batch * p.dp) != 0)
    gb.fail(fmt::format("must be a multiple of micro_batch x dp = {} x {} = {}, found {}", w.micro_batch,
                        p.dp, w.micro_batch * p.dp, w.global_batch));
  if (w.sequence_parallel && p.tp == 1)
    par_node.fail("sequence_parallel needs tp > 1");

  const auto* gpu_spec = cat.gpu(node->gpu);
  if (w.precision == workload::Precision::fp8 && !gpu_spec->peak_fp8)
    m.required("precision")
        .fail(fmt::format("a {} has no fp8 tensor cores; use bf16 or fp16", gpu_spec->name));
  if (w.zero_per_peer_buffers && !cat.cpu(node->cpu)->kernel_launch_cpu)
    m.required("zero_buffers")
        .fail(fmt::format("per_peer needs the CPU time to launch one copy, and the catalog's {} has no "
                          "kernel_launch_cpu; add it to the CPU's entry or use zero_buffers: flat",
                          node->cpu));

  // Memory: every rank must hold its shard and its activations.
  int stage = 0;
  const auto mem = peak_rank_memory(w, &stage);
  const auto* gpu = cat.gpu(node->gpu);
  if (mem.total() > gpu->memory.value.si()) {
    auto gib = [](double b) { return b / (1024.0 * 1024.0 * 1024.0); };
    m.node().fail(fmt::format(
        "the model does not fit in GPU memory: a GPU of pipeline stage {} needs {:.1f} GiB (weights {:.1f}, "
        "gradients {:.1f}, optimizer {:.1f}, activations {:.1f}) but each {} has {:.1f} GiB; try recompute: "
        "full, "
        "a smaller micro_batch, more tensor or pipeline parallelism, or a ZeRO stage (zero: 1, 2 or 3)",
        stage, gib(mem.total()), gib(mem.weights), gib(mem.gradients), gib(mem.optimizer),
        gib(mem.activations), gpu->name, gib(gpu->memory.value.si())));
  }
  return w;
}

} // namespace

workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage_out) {
  const auto& p = w.parallelism;
  workload::MemoryBreakdown worst;
  for (int s = 0; s < p.pp; ++s) {
    workload::MemoryConfig c;
    c.micro_batch = w.micro_batch;
    c.seq_len = w.seq_len;
    c.tp = p.tp;
    c.pp = p.pp;
    c.dp = p.dp;
    c.ep = p.ep;
    c.cp = p.cp;
    c.sequence_parallel = w.sequence_parallel;
    c.recompute = w.recompute;
    c.attention = w.attention;
    c.zero_stage = w.zero_stage;
    c.layers_on_rank = workload::stage_layers(p, w.model.layers, s);
    c.holds_embedding = s == 0 || (s == p.pp - 1 && !w.model.tied_embeddings) || (s == p.pp - 1 && p.pp > 1);
    // 1F1B keeps up to (pp - stage) micro-batches of activations alive; interleaving keeps more of
    // them, each on a 1/v share of the stage's layers (Megatron: warm-up of 2(pp-s-1) + (v-1)pp chunks).
    if (w.virtual_stages > 1)
      c.in_flight_micro_batches = static_cast<int>(
          std::ceil(std::min<double>(2.0 * (p.pp - s - 1) + (w.virtual_stages - 1) * p.pp + 1,
                                     static_cast<double>(w.micro_batches()) * w.virtual_stages) /
                    w.virtual_stages));
    else
      c.in_flight_micro_batches = std::min(p.pp - s, std::max(1, w.micro_batches()));
    const auto m = workload::rank_memory(w.model, c);
    if (m.total() > worst.total()) {
      worst = m;
      if (stage_out != nullptr)
        *stage_out = s;
    }
  }
  return worst;
}

Scenario parse_scenario(const yaml::Node& root, const catalog::Catalog& cat) {
  Scenario s;
  s.file = root.file();
  auto m = root.as_map();
  m.declare({"name", "description", "cluster", "workload", "offload", "seed", "calibration", "validation"});
  const auto name = m.required("name", "a short name for the scenario");
  s.name = name.as_string();
  const bool safe = std::all_of(s.name.begin(), s.name.end(), [](unsigned char ch) {
    return std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.';
  });
  if (s.name.size() > 100)
    name.fail(
        fmt::format("is {} characters long; a scenario name (a directory under results/) has at most 100",
                    s.name.size()));
  if (!safe || s.name == "." || s.name == "..")
    name.fail(fmt::format(
        "\"{}\" is used as a directory name under results/: use letters, digits, '-', '_' or '.'", s.name));
  if (auto d = m.optional("description"))
    s.description = d->as_string();
  const auto cluster_node = m.required("cluster");
  s.cluster = read_cluster(cluster_node.as_map(), cat);
  s.workload = read_workload(m.required("workload").as_map(), cat, s.cluster, cluster_node);

  const auto offload = m.required("offload", "{baseline: ..., variants: [...]}");
  auto om = offload.as_map();
  om.declare({"baseline", "variants"});
  const auto req = s.requirements();
  auto read_variant = [&](const yaml::Node& n) {
    std::string spec;
    std::string given_name;
    if (n.is_map()) {
      auto vm = n.as_map();
      vm.declare({"name", "placement"});
      const auto name_node = vm.required("name");
      given_name = name_node.as_string();
      // The name is a column value of comparison.csv and a --variant argument: keep it plain.
      const bool plain =
          !given_name.empty() && given_name.size() <= 64 &&
          std::all_of(given_name.begin(), given_name.end(), [](unsigned char ch) {
            return std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.' || ch == '+' || ch == '=';
          });
      if (!plain)
        name_node.fail("a variant name has 1 to 64 letters, digits, '-', '_', '.', '+' or '='");
      spec = vm.required("placement", "a preset with +function=site changes, e.g. rdma-nic+storage=dpu_arm")
                 .as_string();
      vm.finish();
    } else {
      spec = n.as_string();
    }
    offload::Variant v;
    try {
      v = offload::parse_variant(spec);
    } catch (const std::invalid_argument& e) {
      n.fail(e.what());
    }
    if (!given_name.empty())
      v.name = given_name;
    if (const auto why = offload::moves_unused(v, req); !why.empty())
      n.fail(fmt::format("variant \"{}\": {}", v.name, why));
    if (const auto* same = s.find_variant(v.name);
        same != nullptr && (same->placement != v.placement || same->on_dpu != v.on_dpu))
      n.fail(fmt::format("variant \"{}\" is listed twice with different placements (the baseline and "
                         "variants share one list of names); give this one another name: {{name: ..., "
                         "placement: {}}}",
                         v.name, spec));
    if (v.on_dpu && s.cluster.dpu.empty())
      n.fail(
          fmt::format("variant \"{}\" needs a DPU but the catalog has none built around {}; add cluster.dpu "
                      "(e.g. bluefield-3)",
                      v.name, s.cluster.nic));
    const auto* device = cat.nic(v.on_dpu ? s.cluster.dpu : s.cluster.nic);
    if (const auto why = offload::unsupported(v, *device, req); !why.empty())
      n.fail(fmt::format("variant \"{}\": {}", v.name, why));
    return v;
  };
  s.variants.push_back(read_variant(om.required("baseline", "a variant name")));
  s.baseline = s.variants.front().name;
  if (auto vs = om.optional("variants")) {
    for (const auto& item : vs->as_sequence().items()) {
      auto v = read_variant(item);
      if (s.find_variant(v.name) == nullptr) // the same variant listed again runs once
        s.variants.push_back(std::move(v));
    }
  }
  om.finish();
  if (auto seed = m.optional("seed"))
    s.seed = static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
  if (auto c = m.optional("calibration")) {
    std::filesystem::path p = c->as_string();
    if (p.is_relative())
      p = std::filesystem::path(s.file).parent_path() / p;
    if (!std::filesystem::exists(p))
      c->fail(fmt::format("no calibration profile at {}", p.string()));
    if (!std::filesystem::is_regular_file(p))
      c->fail(fmt::format("{} is not a file: give the profile.yaml that dpusim-calib wrote", p.string()));
    s.calibration = p.string();
  }
  if (auto v = m.optional("validation")) {
    auto vm = v->as_map();
    vm.declare({"metric", "published", "table", "source", "assumptions"});
    Validation val;
    val.metric = vm.required("metric").as_choice({"tflops_per_gpu", "iteration_time_ms"});
    val.published = vm.required("published", "the published value of the metric").as_number(1e-9, 1e12);
    val.table = vm.required("table", "a name grouping rows of one published table").as_string();
    val.source = vm.required("source", "where the published value comes from").as_string();
    if (auto a = vm.optional("assumptions"))
      for (const auto& item : a->as_sequence().items())
        val.assumptions.push_back(item.as_string());
    vm.finish();
    s.validation = val;
  }
  m.finish();
  return s;
}

offload::Variant variant_for(const Scenario& s, const catalog::Catalog& cat, const std::string& spec) {
  if (const auto* named = s.find_variant(spec))
    return *named;
  auto v = offload::parse_variant(spec);
  if (const auto why = offload::moves_unused(v, s.requirements()); !why.empty())
    throw std::invalid_argument(fmt::format("variant \"{}\": {}", v.name, why));
  if (v.on_dpu && s.cluster.dpu.empty())
    throw std::invalid_argument(
        fmt::format("variant \"{}\" needs a DPU but the scenario has none (add cluster.dpu)", v.name));
  if (const auto why =
          offload::unsupported(v, *cat.nic(v.on_dpu ? s.cluster.dpu : s.cluster.nic), s.requirements());
      !why.empty())
    throw std::invalid_argument(fmt::format("variant \"{}\": {}", v.name, why));
  return v;
}

offload::Requirements Scenario::requirements() const {
  offload::Requirements r;
  r.encryption = cluster.services.encryption;
  r.overlay = cluster.services.overlay;
  r.agents = cluster.services.agent_cores > 0;
  r.storage = (workload.data && workload.data->sample.si() > 0) || workload.checkpoint.has_value();
  r.separate_storage_fabric = cluster.storage.separate_fabric;
  return r;
}

const offload::Variant* Scenario::find_variant(const std::string& variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name)
      return &v;
  return nullptr;
}

Scenario load_scenario(const std::string& path, const catalog::Catalog& cat) {
  return parse_scenario(yaml::load_file(path), cat);
}

} // namespace dpusim::scenario
