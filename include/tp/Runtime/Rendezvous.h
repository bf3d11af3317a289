//===- Rendezvous.h - TCP rendezvous to share a blob ------------*- C++ -*-===//
//
// Rank 0 sends a small blob (an NCCL unique id) to every other rank of a job
// over TCP, for jobs that have neither MPI nor a shared file system. Needs
// no CUDA: it lives in TPRuntime so that tests and tools can use it anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TP_RUNTIME_RENDEZVOUS_H
#define TP_RUNTIME_RENDEZVOUS_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tp {
namespace runtime {

/// A parsed rendezvous address.
struct RendezvousAddress {
  /// A host name or numeric IPv4/IPv6 address (IPv6 without the brackets);
  /// empty for "all interfaces" ("tcp://*:PORT" or "tcp://:PORT"), which only
  /// rank 0 can use.
  std::string host;
  /// The TCP port; 0 lets rank 0's system pick a free one (RendezvousServer
  /// reports it), which the other ranks cannot use.
  uint16_t port = 0;

  /// "tcp://host:port", with brackets around an IPv6 host and "*" for all
  /// interfaces.
  std::string str() const;
};

/// Parses "tcp://HOST:PORT" or "HOST:PORT". HOST is a name, an IPv4 address,
/// an IPv6 address in brackets ("[::1]"), or "*" / nothing for all
/// interfaces; PORT is a decimal number up to 65535. Throws
/// std::invalid_argument quoting \p address and saying what is wrong.
RendezvousAddress parseRendezvousAddress(const std::string &address);

/// The largest blob a rendezvous carries (a receiver rejects a larger length
/// as garbage instead of allocating it).
constexpr size_t kMaxRendezvousBlob = 1 << 20;

/// Options of the receiving side.
struct RendezvousOptions {
  /// The whole call (connection attempts, hello, reply) ends within this
  /// long or throws CommError. Zero waits without a limit.
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
  /// The pause between two rounds of connection attempts while rank 0 is not
  /// listening yet.
  std::chrono::milliseconds retryInterval = std::chrono::milliseconds(50);
  /// Called (on the calling thread) each time a round of connection attempts
  /// failed and will be retried, with the reason ("connection refused");
  /// lets a tool log that it waits for rank 0, and a test wait for it.
  std::function<void(const std::string &reason)> onRetry;
};

/// Rank 0's side: listens on construction, so that the port is known (and
/// "port in use" reported) before serve() waits for the other ranks.
///
/// Binds every address the host resolves to (IPv4 and IPv6; all interfaces
/// for an empty host) with SO_REUSEADDR. A host that resolves to a loopback
/// address (a host name that /etc/hosts maps to 127.0.1.1, say) cannot be
/// reached from other machines: use a routable address or "*" on rank 0.
class RendezvousServer {
public:
  /// Listens at \p address for the \p nranks - 1 other ranks. Throws
  /// std::invalid_argument for a bad address or nranks, CommError if the host
  /// cannot be resolved or no address can be bound (port in use).
  RendezvousServer(const std::string &address, int nranks);
  /// Closes every socket; ranks not served yet see the connection close.
  ~RendezvousServer();
  RendezvousServer(const RendezvousServer &) = delete;
  RendezvousServer &operator=(const RendezvousServer &) = delete;

  /// The port it listens on (the system's choice when the address said 0).
  uint16_t port() const;
  /// The address with the actual port, for messages.
  std::string address() const;

  /// Sends \p blob to every rank 1..nranks-1 and returns once each of them
  /// has acknowledged receiving it, so that no rank goes on with an older
  /// blob. Peers are served concurrently as they arrive; one that sends
  /// nothing does not hold up the others.
  ///
  /// A connection whose hello does not start with the protocol's magic (a
  /// port scanner, another service) is answered with an error and ignored.
  /// A tp peer that disagrees (another protocol version, another nranks, a
  /// rank out of range, a rank that already arrived) is answered with the
  /// reason, and serve() throws CommError with the same reason: the job is
  /// misconfigured and waiting would only delay the failure. After
  /// \p timeout (zero: no limit) it throws CommError naming the address, the
  /// ranks that never arrived and the connections it rejected. Can be called
  /// once.
  void serve(const std::vector<uint8_t> &blob,
             std::chrono::milliseconds timeout);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The side of rank \p rank (1..nranks-1): connects to rank 0 at \p address,
/// retrying while rank 0 is not listening yet, sends a hello (magic, protocol
/// version, rank, nranks) and returns rank 0's blob. Throws
/// std::invalid_argument for a bad address, rank or nranks, and CommError
/// naming the address when it cannot connect within the timeout, when rank 0
/// rejects it (with rank 0's reason), sends garbage, closes the connection or
/// does not reply in time.
std::vector<uint8_t> tcpReceiveBlob(const std::string &address, int rank,
                                    int nranks,
                                    const RendezvousOptions &options = {});

/// Shares rank 0's \p blob with all \p nranks ranks over TCP at \p address:
/// rank 0 listens (RendezvousServer) and returns \p blob once every other
/// rank has it; the others ignore \p blob and return what rank 0 sent
/// (tcpReceiveBlob). Every rank passes the same address (rank 0 binds it, the
/// others connect to it) and nranks. With one rank it returns \p blob without
/// touching the network. Throws like RendezvousServer and tcpReceiveBlob.
std::vector<uint8_t>
tcpBroadcastBlob(const std::string &address, int rank, int nranks,
                 const std::vector<uint8_t> &blob,
                 std::chrono::milliseconds timeout = std::chrono::seconds(120));

} // namespace runtime
} // namespace mlir::tp

#endif // TP_RUNTIME_RENDEZVOUS_H
