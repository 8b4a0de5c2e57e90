#include "sim/cli/mpi_world.hpp"

#include <boost/program_options/errors.hpp>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <thread>

#ifdef DPUSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace dpusim::cli {

bool MpiWorld::launched_by_mpi() {
  // Open MPI's mpirun, then PMIx and PMI launchers (MPICH's mpiexec, Slurm's srun --mpi=...).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr)
      return true;
  return false;
}

MpiWorld::MpiWorld(MpiWorld&& other) noexcept
    : rank_(other.rank_), size_(other.size_), local_size_(other.local_size_), joined_(other.joined_) {
  other.joined_ = false;
}

#ifdef DPUSIM_HAVE_MPI

namespace {

void check(int status, const char* what) {
  if (status != MPI_SUCCESS)
    throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

} // namespace

std::optional<MpiWorld> MpiWorld::join_if_launched() {
  if (!launched_by_mpi())
    return std::nullopt;
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  int rank = 0;
  int size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  int local_size = 1;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  check(MPI_Comm_size(local, &local_size), "MPI_Comm_size");
  MPI_Comm_free(&local);
  return MpiWorld(rank, size, local_size);
}

void MpiWorld::wait_for_all() const {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
  for (int done = 0;;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done != 0)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

MpiWorld::~MpiWorld() {
  if (joined_)
    MPI_Finalize();
}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  if (mine.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("MPI: a rank's rows exceed 2 GiB");
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets(sizes.size());
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += sizes[r];
  }
  if (total > std::numeric_limits<int>::max())
    throw std::runtime_error("MPI: the ranks' rows exceed 2 GiB");
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < sizes.size(); ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(sizes[r])));
  return out;
}

std::string MpiWorld::broadcast(const std::string& value) const {
  int n = static_cast<int>(value.size());
  check(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string out = rank_ == 0 ? value : std::string(static_cast<std::size_t>(n), '\0');
  check(MPI_Bcast(out.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return out;
}

#else

std::optional<MpiWorld> MpiWorld::join_if_launched() {
  if (!launched_by_mpi())
    return std::nullopt;
  throw boost::program_options::error(
      "started by an MPI launcher, but this dpusim was built without MPI (no MPI library was found when "
      "it was configured): install Open MPI (apt-get install openmpi-bin libopenmpi-dev; tools/setup.sh "
      "does) and rebuild, or split the plan with --shard i/n and join the shards with dpusim merge");
}

MpiWorld::~MpiWorld() = default;

void MpiWorld::wait_for_all() const {}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  return {mine};
}

std::string MpiWorld::broadcast(const std::string& value) const {
  return value;
}

#endif

} // namespace dpusim::cli
