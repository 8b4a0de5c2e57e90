// `mpirun -n K dpusim plan ...`: the ranks of an MPI job, where dpusim was built with MPI (Debian's
// OpenMPI, found at configure time) and launched by an MPI launcher. Each rank simulates its share of
// the points in processes of its own (one simulation per process, as everywhere); rank 0 gathers the
// rows and publishes. Only byte strings travel: the points' rows, and each rank's verdict.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::cli {

class MpiWorld {
public:
  /// Joins the MPI job when the process was started by an MPI launcher (mpirun or mpiexec, Slurm's srun:
  /// the environment says so); nullopt otherwise. Throws boost::program_options::error (bad input: exit
  /// status 2) when launched so but built without MPI, saying how to get it.
  static std::optional<MpiWorld> join_if_launched();
  /// Whether the environment says an MPI launcher started this process.
  static bool launched_by_mpi();

  MpiWorld(MpiWorld&&) noexcept;
  MpiWorld& operator=(MpiWorld&&) = delete;
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  ~MpiWorld(); ///< MPI_Finalize

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// The ranks on this machine (sharing its memory), this one included.
  [[nodiscard]] int local_size() const { return local_size_; }
  /// Returns once every rank has called it, sleeping rather than spinning meanwhile (a blocking MPI
  /// call polls, taking a core from the simulations of the ranks still at work). Collective.
  void wait_for_all() const;
  /// Every rank's `mine`, in rank order, on rank 0; empty elsewhere. Collective: every rank calls it.
  [[nodiscard]] std::vector<std::string> gather(const std::string& mine) const;
  /// Rank 0's `value` on every rank. Collective.
  [[nodiscard]] std::string broadcast(const std::string& value) const;

private:
  MpiWorld(int rank, int size, int local_size) : rank_(rank), size_(size), local_size_(local_size) {}
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  bool joined_ = true;
};

} // namespace dpusim::cli
