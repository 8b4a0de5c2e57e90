#include "sim/input/scenario_loader.hpp"

#include "models/workload/transformer_reader.hpp"
#include "sim/model/catalog_names.hpp"
#include "sim/model/core/offload_model.hpp"
#include "sim/model/registry.hpp"
#include "sim/offload/variant.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>

namespace dpusim::input {

using namespace scenario;

namespace {

/// The keys the models declare directly under `section`.
std::vector<std::string_view> keys_of(std::string_view section) {
  return model::registry().keys_under(section);
}

std::string catalog_name(const yaml::Node& node, const std::vector<std::string>& valid,
                         std::string_view what) {
  const std::string name = node.as_string();
  if (model::is_one_of(name, valid))
    return name;
  node.fail(model::unknown_name(name, valid, what));
}

FabricConfig read_fabric(yaml::Map m, const catalog::Catalog& cat) {
  m.declare(keys_of("cluster.fabric"));
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
  m.declare(keys_of("cluster"));
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
    sm.declare(keys_of("cluster.services"));
    if (auto e = sm.optional("encryption")) {
      const auto name = e->as_choice({"none", "ipsec", "tls"});
      c.services.encryption = name == "ipsec" ? offload::Encryption::ipsec
                              : name == "tls" ? offload::Encryption::tls
                                              : offload::Encryption::none;
    }
    if (auto o = sm.optional("overlay"))
      c.services.overlay = o->as_choice({"none", "vxlan"}) == "vxlan";
    if (auto a = sm.optional("agents"))
      c.services.agent_cores = a->as_number(0, 4096);
    sm.finish();
  }
  if (auto tn = m.optional("tenants")) {
    auto tm = tn->as_map();
    tm.declare(keys_of("cluster.tenants"));
    c.tenants.flows = static_cast<int>(
        tm.required("flows", "other tenants' bulk flows per leaf crossing the spines, e.g. 8")
            .as_int(1, 4096));
    if (auto iso = tm.optional("isolation"))
      c.tenants.dpu_qos = iso->as_choice({"shared", "dpu_qos"}) == "dpu_qos";
    if (auto g = tm.optional("guarantee")) {
      c.tenants.guarantee = g->as_number(0.0, 1.0);
      if (!(c.tenants.guarantee > 0 && c.tenants.guarantee < 1))
        g->fail("the guaranteed share of the up-links is a fraction strictly between 0 and 1, e.g. 0.6");
    }
    tm.finish();
  }
  if (auto st = m.optional("storage")) {
    auto sm = st->as_map();
    sm.declare(keys_of("cluster.storage"));
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
      c.storage.node_link = nl->as_quantity<units::DataRate>();
    if (auto cc = sm.optional("client_connections"))
      c.storage.client_connections = static_cast<int>(cc->as_int(1, 1024));
    sm.finish();
  }
  m.finish();
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

WorkloadConfig read_workload(yaml::Map m, const catalog::Catalog& cat) {
  m.declare(keys_of("workload"));
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
    p.declare(keys_of("workload.parallelism"));
    w.parallelism.tp = static_cast<int>(p.required("tp", "the tensor-parallel degree").as_int(1, 1 << 16));
    if (auto pp = p.optional("pp"))
      w.parallelism.pp = static_cast<int>(pp->as_int(1, 1 << 16));
    w.parallelism.dp = static_cast<int>(p.required("dp", "the data-parallel degree").as_int(1, 1 << 20));
    if (auto cp = p.optional("cp"))
      w.parallelism.cp = static_cast<int>(cp->as_int(1, 1 << 16));
    if (auto ep = p.optional("ep"))
      w.parallelism.ep = static_cast<int>(ep->as_int(1, 1 << 16));
    if (auto v = p.optional("virtual_stages"))
      w.virtual_stages = static_cast<int>(v->as_int(1, 1 << 10));
    auto& par = w.parallelism;
    // Uneven pipeline stages: the first and/or last stage hold a given number of layers.
    for (const auto* key : {"first_stage_layers", "last_stage_layers"})
      if (auto n = p.optional(key))
        (std::string_view(key) == "first_stage_layers" ? par.first_stage_layers : par.last_stage_layers) =
            static_cast<int>(n->as_int(1, 1 << 20));
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
  if (auto b = m.optional("zero_buffers"))
    w.zero_per_peer_buffers = b->as_choice({"flat", "per_peer"}) == "per_peer";
  if (auto c = m.optional("communication")) {
    auto cm = c->as_map();
    cm.declare(keys_of("workload.communication"));
    if (auto a = cm.optional("algorithm"))
      w.collective_algorithm = a->as_choice({"ring", "tree", "hierarchical", "nvls"});
    if (auto t = cm.optional("socket_threads"))
      w.socket_threads = static_cast<int>(t->as_int(1, 64));
    cm.finish();
  }
  if (auto d = m.optional("data")) {
    auto dm = d->as_map();
    dm.declare(keys_of("workload.data"));
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
    w.data = dc;
  }
  if (auto ck = m.optional("checkpoint")) {
    auto cm = ck->as_map();
    cm.declare(keys_of("workload.checkpoint"));
    CheckpointConfig c;
    c.every =
        static_cast<int>(cm.required("every", "iterations between checkpoints, e.g. 500").as_int(1, 1 << 30));
    if (auto mode = cm.optional("mode"))
      c.async = mode->as_choice({"sync", "async"}) == "async";
    if (auto size = cm.optional("size"))
      c.size = size->as_quantity<units::Bytes>();
    cm.finish();
    w.checkpoint = c;
  }
  m.finish();
  return w;
}

/// Where `key` ("workload.parallelism.ep", "offload.variants[1]") is in the file: its value, or the
/// nearest enclosing mapping that is there when the key itself is missing.
Location locate(const yaml::Node& root, const std::string& key) {
  // YAML::Node's operator= writes into the node it refers to: reset() rebinds without touching the file.
  YAML::Node at;
  at.reset(root.raw());
  std::size_t start = 0;
  while (start < key.size()) {
    auto end = key.find('.', start);
    if (end == std::string::npos)
      end = key.size();
    std::string segment = key.substr(start, end - start);
    std::optional<std::size_t> index;
    if (const auto bracket = segment.find('['); bracket != std::string::npos) {
      index = std::stoul(segment.substr(bracket + 1));
      segment.resize(bracket);
    }
    YAML::Node next;
    bool found = false;
    if (at.IsMap())
      for (const auto& kv : at)
        if (kv.first.IsScalar() && kv.first.Scalar() == segment) {
          next.reset(kv.second);
          found = true;
        }
    if (found && index) {
      found = next.IsSequence() && *index < next.size();
      if (found)
        next.reset(next[*index]);
    }
    if (!found)
      break;
    at.reset(next);
    start = end + 1;
  }
  return yaml::Node(at, std::make_shared<const std::string>(root.file()), key, Location{root.file(), 1, 1})
      .location();
}

} // namespace

Scenario parse_scenario(const yaml::Node& root, const catalog::Catalog& cat) {
  Scenario s;
  s.file = root.file();
  auto m = root.as_map();
  m.declare(keys_of(""));
  s.name = m.required("name", "a short name for the scenario").as_string();
  if (auto d = m.optional("description"))
    s.description = d->as_string();
  s.cluster = read_cluster(m.required("cluster").as_map(), cat);
  s.workload = read_workload(m.required("workload").as_map(), cat);

  const auto offload = m.required("offload", "{baseline: ..., variants: [...]}");
  auto om = offload.as_map();
  om.declare(keys_of("offload"));
  std::vector<std::string> variant_keys; // by variant of s.variants: where the file lists it
  auto read_variant = [&](const yaml::Node& n) {
    std::string spec;
    std::string given_name;
    if (n.is_map()) {
      auto vm = n.as_map();
      vm.declare(keys_of("offload.variants[]"));
      const auto name_node = vm.required("name");
      given_name = name_node.as_string();
      if (!model::plain_variant_name(given_name))
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
    if (const auto* same = s.find_variant(v.name);
        same != nullptr && (same->placement != v.placement || same->on_dpu != v.on_dpu))
      n.fail(fmt::format("variant \"{}\" is listed twice with different placements (the baseline and "
                         "variants share one list of names); give this one another name: {{name: ..., "
                         "placement: {}}}",
                         v.name, spec));
    if (s.find_variant(v.name) == nullptr) { // the same variant listed again runs once
      s.variants.push_back(std::move(v));
      variant_keys.push_back(n.path());
    }
  };
  read_variant(om.required("baseline", "a variant name"));
  s.baseline = s.variants.front().name;
  if (auto vs = om.optional("variants"))
    for (const auto& item : vs->as_sequence().items())
      read_variant(item);
  om.finish();
  if (auto seed = m.optional("seed"))
    s.seed = static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
  if (auto c = m.optional("calibration")) {
    std::filesystem::path p = c->as_string();
    if (p.is_relative())
      p = std::filesystem::path(s.file).parent_path() / p;
    s.calibration = p.string();
  }
  if (auto v = m.optional("validation")) {
    auto vm = v->as_map();
    vm.declare(keys_of("validation"));
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

  // The models' checks, each problem placed where its key is in the file. A variant's key names its
  // place in the file's list (duplicates were dropped from s.variants).
  const auto problems = model::check_scenario(s, cat);
  if (!problems.empty()) {
    const auto& p = problems.front();
    std::string key = p.key;
    for (std::size_t i = 0; i < s.variants.size(); ++i)
      if (key == (i == 0 ? std::string("offload.baseline") : fmt::format("offload.variants[{}]", i - 1)))
        key = variant_keys[i];
    std::string message = p.message;
    if (!p.related.empty()) {
      const auto at = locate(root, p.related);
      message += fmt::format(" ({} at {}:{})", p.related, at.line, at.column);
    }
    throw InputError(locate(root, key), key, message);
  }
  return s;
}

offload::Variant variant_for(const Scenario& s, const catalog::Catalog& cat, const std::string& spec) {
  if (const auto* named = s.find_variant(spec))
    return *named;
  auto v = offload::parse_variant(spec);
  if (auto why = model::variant_problem(s, cat, v); !why.empty())
    throw std::invalid_argument(why);
  return v;
}

Scenario load_scenario(const std::string& path, const catalog::Catalog& cat) {
  return parse_scenario(yaml::load_file(path), cat);
}

} // namespace dpusim::input
