// dpusim-calib-gpu: the CUDA part of the memory/gpu probe, a separate program so that dpusim-calib itself
// needs no CUDA. Built only when CMake finds the CUDA toolkit (CUDA::cudart and CUDA::cublas); plain C++
// against the CUDA runtime and cuBLAS, no device code. Prints the CSV that parsers/gpu_probe_parser.hpp
// documents:
//   host<->device copies from/to pinned memory (cudaMemcpyAsync, timed with CUDA events) over sizes,
//   bf16 GEMM with fp32 accumulation (cublasGemmEx) over square sizes.
// usage: dpusim-calib-gpu [--device N] [--seconds S]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const char* what, const char* detail) {
  std::fprintf(stderr, "dpusim-calib-gpu: %s: %s\n", what, detail);
  std::exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    fail(what, cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    fail(what, std::to_string(static_cast<int>(s)).c_str());
}

struct Options {
  int device = 0;
  double seconds = 10;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--device" || a == "--seconds") && i + 1 < argc) {
      char* end = nullptr;
      const double v = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || v < 0)
        fail(a.c_str(), "expects a non-negative number");
      if (a == "--device")
        o.device = static_cast<int>(v);
      else
        o.seconds = std::max(0.5, v);
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: dpusim-calib-gpu [--device N] [--seconds S]\n");
      std::exit(0);
    } else {
      fail(a.c_str(), "unknown argument; valid: --device N, --seconds S");
    }
  }
  return o;
}

// Times `iterations` runs of `op` on `stream` with CUDA events; returns seconds per run.
template <class Op>
double time_runs(cudaStream_t stream, int iterations, Op op) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; i < iterations; ++i)
    op();
  check(cudaEventRecord(stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return static_cast<double>(ms) * 1e-3 / iterations;
}

// Enough iterations to fill `budget_s`, from one timed probe run.
template <class Op>
int iterations_for(cudaStream_t stream, double budget_s, Op op) {
  const double one = std::max(1e-7, time_runs(stream, 1, op));
  return std::clamp(static_cast<int>(budget_s / one), 3, 100000);
}

std::uint16_t to_bf16(float f) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<std::uint16_t>(bits >> 16);
}

} // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  check(cudaSetDevice(o.device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, o.device), "cudaGetDeviceProperties");
  int runtime = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::string name = prop.name;
  std::replace(name.begin(), name.end(), ',', ' ');
  std::printf("# dpusim-calib-gpu 1\n# device: %d,%s,%d.%d,%d\ntest,size,iterations,seconds,rate\n", o.device,
              name.c_str(), prop.major, prop.minor, runtime);
  std::fflush(stdout);

  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");

  // Copies: half of the time budget over three sizes and two directions.
  std::vector<std::size_t> copy_sizes{std::size_t{1} << 20, std::size_t{64} << 20, std::size_t{1} << 30};
  while (copy_sizes.size() > 1 && copy_sizes.back() * 2 > free_bytes / 2)
    copy_sizes.pop_back();
  const std::size_t max_copy = copy_sizes.back();
  void* host = nullptr;
  void* device = nullptr;
  check(cudaMallocHost(&host, max_copy), "cudaMallocHost");
  check(cudaMalloc(&device, max_copy), "cudaMalloc");
  std::memset(host, 0x5a, max_copy);
  const double copy_budget = o.seconds * 0.5 / static_cast<double>(copy_sizes.size() * 2);
  for (const auto size : copy_sizes) {
    for (const bool h2d : {true, false}) {
      auto op = [&] {
        check(h2d ? cudaMemcpyAsync(device, host, size, cudaMemcpyHostToDevice, stream)
                  : cudaMemcpyAsync(host, device, size, cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync");
      };
      (void)time_runs(stream, 2, op); // warm-up
      const int n = iterations_for(stream, copy_budget, op);
      const double s = time_runs(stream, n, op);
      std::printf("%s,%zu,%d,%.9g,%.6g\n", h2d ? "h2d_pinned" : "d2h_pinned", size, n, s,
                  static_cast<double>(size) / s);
      std::fflush(stdout);
    }
  }
  check(cudaFree(device), "cudaFree");
  check(cudaFreeHost(host), "cudaFreeHost");

  // bf16 GEMMs, fp32 accumulation, the other half of the budget.
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  check(cublasSetStream(handle, stream), "cublasSetStream");
  std::vector<int> gemm_sizes{1024, 2048, 4096, 8192};
  while (gemm_sizes.size() > 1 && 3.0 * 2.0 * static_cast<double>(gemm_sizes.back()) * gemm_sizes.back() >
                                      static_cast<double>(free_bytes) / 2)
    gemm_sizes.pop_back();
  const int max_n = gemm_sizes.back();
  const std::size_t elems = static_cast<std::size_t>(max_n) * static_cast<std::size_t>(max_n);
  std::vector<std::uint16_t> init(elems);
  std::uint32_t lcg = 12345;
  for (auto& v : init) {
    lcg = lcg * 1664525u + 1013904223u;
    v = to_bf16(static_cast<float>(lcg >> 8) / 16777216.0f - 0.5f);
  }
  void *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, elems * 2), "cudaMalloc");
  check(cudaMalloc(&b, elems * 2), "cudaMalloc");
  check(cudaMalloc(&c, elems * 2), "cudaMalloc");
  check(cudaMemcpy(a, init.data(), elems * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, init.data(), elems * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
  const float alpha = 1.0f, beta = 0.0f;
  const double gemm_budget = o.seconds * 0.5 / static_cast<double>(gemm_sizes.size());
  for (const int n : gemm_sizes) {
    auto op = [&] {
      check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16BF, n, b, CUDA_R_16BF,
                         n, &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    };
    (void)time_runs(stream, 3, op); // warm-up (and cuBLAS heuristics)
    const int iters = iterations_for(stream, gemm_budget, op);
    const double s = time_runs(stream, iters, op);
    const double flops = 2.0 * n * static_cast<double>(n) * n;
    std::printf("gemm_bf16,%d,%d,%.9g,%.6g\n", n, iters, s, flops / s);
    std::fflush(stdout);
  }
  check(cublasDestroy(handle), "cublasDestroy");
  check(cudaFree(a), "cudaFree");
  check(cudaFree(b), "cudaFree");
  check(cudaFree(c), "cudaFree");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}
