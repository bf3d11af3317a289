//===- RendezvousTest.cpp - Tests for the TCP rendezvous --------*- C++ -*-===//
//
// Ranks are threads on 127.0.0.1 (and ::1 where the machine has IPv6); rank 0
// listens on a port the system picks. Misbehaving peers and a misbehaving
// rank 0 are raw sockets speaking the wire protocol by hand.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Rendezvous.h"

#include "tp/Runtime/Communicator.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

using namespace mlir::tp::runtime;
using namespace std::chrono_literals;

namespace {
/// Generous for what should succeed, and still short if it does not.
constexpr std::chrono::milliseconds kOk = 2000ms;

std::vector<uint8_t> makeBlob(size_t size) {
  std::vector<uint8_t> blob(size);
  for (size_t i = 0; i < size; ++i)
    blob[i] = static_cast<uint8_t>(i * 7 + 3);
  return blob;
}

std::string addressOf(uint16_t port) {
  return "tcp://127.0.0.1:" + std::to_string(port);
}

/// A port nobody listens on (the system's pick, released again).
uint16_t freePort() {
  RendezvousServer probe("tcp://127.0.0.1:0", 2);
  return probe.port();
}

/// Runs \p fn on a thread; get() joins and rethrows what it threw.
class Task {
public:
  explicit Task(std::function<void()> fn)
      : thread_([this, fn = std::move(fn)] {
          try {
            fn();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~Task() {
    if (thread_.joinable())
      thread_.join();
  }
  void get() {
    thread_.join();
    if (error_)
      std::rethrow_exception(error_);
  }

private:
  std::exception_ptr error_;
  std::thread thread_;
};

/// The message of the CommError that \p fn throws ("" if it throws none).
template <typename Fn> std::string commError(Fn fn) {
  try {
    fn();
  } catch (const CommError &e) {
    return e.what();
  }
  return "";
}

template <typename Fn> std::string invalidArgument(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}

/// A raw blocking socket with a receive timeout, so that a test cannot hang.
class RawSocket {
public:
  explicit RawSocket(int fd) : fd_(fd) {
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  RawSocket(const RawSocket &) = delete;
  RawSocket &operator=(const RawSocket &) = delete;
  ~RawSocket() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }

  /// A connection to 127.0.0.1:\p port.
  static std::unique_ptr<RawSocket> connectTo(uint16_t port) {
    auto s = std::make_unique<RawSocket>(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(
        ::connect(s->get(), reinterpret_cast<sockaddr *>(&sa), sizeof(sa)), 0);
    return s;
  }
  /// A socket listening on 127.0.0.1 at a port the system picks.
  static std::unique_ptr<RawSocket> listenAny(uint16_t &port) {
    auto s = std::make_unique<RawSocket>(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(s->get(), reinterpret_cast<sockaddr *>(&sa), sizeof(sa)),
              0);
    EXPECT_EQ(::listen(s->get(), 8), 0);
    socklen_t len = sizeof(sa);
    ::getsockname(s->get(), reinterpret_cast<sockaddr *>(&sa), &len);
    port = ntohs(sa.sin_port);
    return s;
  }
  std::unique_ptr<RawSocket> accept() {
    return std::make_unique<RawSocket>(::accept(fd_, nullptr, nullptr));
  }

  void send(const std::vector<uint8_t> &bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  /// Up to \p size bytes; fewer when the peer closes.
  std::vector<uint8_t> receive(size_t size) {
    std::vector<uint8_t> out(size);
    size_t got = 0;
    while (got < size) {
      ssize_t k = ::recv(fd_, out.data() + got, size - got, 0);
      if (k <= 0)
        break;
      got += static_cast<size_t>(k);
    }
    out.resize(got);
    return out;
  }

private:
  int fd_;
};

std::vector<uint8_t> words(std::initializer_list<uint32_t> values) {
  std::vector<uint8_t> out;
  for (uint32_t v : values)
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<uint8_t>(v >> shift));
  return out;
}

constexpr uint32_t kHello = 0x54505248, kReply = 0x54505252;

/// Rank 0's reply as the status and the payload as text.
std::pair<uint32_t, std::string> readReply(RawSocket &s) {
  std::vector<uint8_t> header = s.receive(16);
  if (header.size() != 16)
    return {~0u, "short reply"};
  auto get = [&](size_t at) {
    return (uint32_t(header[at]) << 24) | (uint32_t(header[at + 1]) << 16) |
           (uint32_t(header[at + 2]) << 8) | uint32_t(header[at + 3]);
  };
  EXPECT_EQ(get(0), kReply);
  std::vector<uint8_t> payload = s.receive(get(12));
  return {get(8), std::string(payload.begin(), payload.end())};
}
} // namespace

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

TEST(RendezvousAddressTest, ParsesHostsAndPorts) {
  RendezvousAddress a = parseRendezvousAddress("tcp://127.0.0.1:29500");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 29500);
  EXPECT_EQ(a.str(), "tcp://127.0.0.1:29500");

  a = parseRendezvousAddress("node-0.cluster_a:1");
  EXPECT_EQ(a.host, "node-0.cluster_a");
  EXPECT_EQ(a.port, 1);

  a = parseRendezvousAddress("tcp://[fe80::1%eth0]:65535");
  EXPECT_EQ(a.host, "fe80::1%eth0");
  EXPECT_EQ(a.port, 65535);
  EXPECT_EQ(a.str(), "tcp://[fe80::1%eth0]:65535");

  EXPECT_EQ(parseRendezvousAddress("tcp://*:0").host, "");
  EXPECT_EQ(parseRendezvousAddress(":7").host, "");
  EXPECT_EQ(parseRendezvousAddress(":7").str(), "tcp://*:7");
}

TEST(RendezvousAddressTest, RejectsBadAddresses) {
  struct Case {
    const char *address, *why;
  } cases[] = {
      {"", "no host and port"},
      {"tcp://", "no host and port"},
      {"udp://h:1", "unsupported scheme 'udp'"},
      {"h", "no ':PORT'"},
      {"h:", "no port after ':'"},
      {"h:http", "port 'http' is not a number from 0 to 65535"},
      {"h:65536", "port '65536' is not a number"},
      {"h:-1", "port '-1' is not a number"},
      {"h:123456789012", "port '123456789012' is not a number"},
      {"h:80/path", "port '80/path' is not a number"},
      {"::1:80", "an IPv6 address needs brackets"},
      {"[::1]80", "no ':PORT' after the IPv6 address"},
      {"[::1", "no ']'"},
      {"[host]:1", "'host' in brackets is not an IPv6 address"},
      {"ho st:1", "invalid character ' ' in host 'ho st'"},
      {"user@h:1", "invalid character '@'"},
      {"h\n:1", "invalid character '\\x0a' in host 'h\\x0a'"},
      {"h:1\n", "port '1\\x0a' is not a number"},
  };
  for (const Case &c : cases) {
    std::string msg =
        invalidArgument([&] { parseRendezvousAddress(c.address); });
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    std::string quoted = std::string(c.address).find('\n') == std::string::npos
                             ? std::string("'") + c.address + "'"
                             : "'";
    EXPECT_NE(msg.find("bad rendezvous address " + quoted), std::string::npos)
        << c.address << ": " << msg;
    EXPECT_NE(msg.find(c.why), std::string::npos) << c.address << ": " << msg;
  }
}

TEST(RendezvousAddressTest, ReceiversNeedHostPortAndRank) {
  EXPECT_NE(invalidArgument([] {
              tcpReceiveBlob("tcp://*:5", 1, 2);
            }).find("needs rank 0's host"),
            std::string::npos);
  EXPECT_NE(invalidArgument([] {
              tcpReceiveBlob("127.0.0.1:0", 1, 2);
            }).find("needs rank 0's port"),
            std::string::npos);
  EXPECT_NE(invalidArgument([] {
              tcpReceiveBlob("127.0.0.1:5", 0, 2);
            }).find("got rank 0 of 2"),
            std::string::npos);
  EXPECT_NE(invalidArgument([] {
              tcpBroadcastBlob("127.0.0.1:5", 2, 2, {});
            }).find("rank 2 is not in 0..1"),
            std::string::npos);
  EXPECT_NE(invalidArgument([] {
              RendezvousServer("127.0.0.1:0", 0);
            }).find("nranks must be at least 1"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Sharing a blob
//===----------------------------------------------------------------------===//

TEST(RendezvousTest, EveryRankGetsRankZerosBlob) {
  for (size_t size : {size_t(0), size_t(128), size_t(256 << 10)}) {
    const int nranks = 4;
    const std::vector<uint8_t> blob = makeBlob(size);
    RendezvousServer server("tcp://127.0.0.1:0", nranks);
    std::vector<std::vector<uint8_t>> got(nranks);
    std::vector<std::unique_ptr<Task>> ranks;
    for (int r = 1; r < nranks; ++r)
      ranks.push_back(std::make_unique<Task>([&, r] {
        got[r] = tcpBroadcastBlob(server.address(), r, nranks, {9, 9}, kOk);
      }));
    server.serve(blob, kOk);
    for (auto &t : ranks)
      t->get();
    for (int r = 1; r < nranks; ++r)
      EXPECT_EQ(got[r], blob) << "rank " << r << ", " << size << " bytes";
  }
}

TEST(RendezvousTest, WorksOverIPv6) {
  std::unique_ptr<RendezvousServer> server;
  try {
    server = std::make_unique<RendezvousServer>("tcp://[::1]:0", 2);
  } catch (const CommError &e) {
    GTEST_SKIP() << "no IPv6 loopback: " << e.what();
  }
  std::vector<uint8_t> got;
  Task rank1([&] { got = tcpReceiveBlob(server->address(), 1, 2); });
  server->serve(makeBlob(128), kOk);
  rank1.get();
  EXPECT_EQ(got, makeBlob(128));
}

TEST(RendezvousTest, OneRankNeedsNoNetwork) {
  EXPECT_EQ(tcpBroadcastBlob("tcp://127.0.0.1:1", 0, 1, makeBlob(5), kOk),
            makeBlob(5));
}

// The longest timeout (a caller's "forever") must not overflow into a
// deadline already past: the retrying rank keeps retrying until rank 0
// listens, as with a finite one.
TEST(RendezvousTest, LongestTimeoutStillRetries) {
  const uint16_t port = freePort();
  std::mutex mu;
  std::condition_variable cv;
  int refusals = 0;
  RendezvousOptions options;
  options.timeout = std::chrono::milliseconds::max();
  options.retryInterval = 5ms;
  options.onRetry = [&](const std::string &) {
    std::lock_guard<std::mutex> lock(mu);
    ++refusals;
    cv.notify_all();
  };
  std::vector<uint8_t> got;
  Task rank1([&] { got = tcpReceiveBlob(addressOf(port), 1, 2, options); });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return refusals > 0; }));
  }
  EXPECT_EQ(tcpBroadcastBlob(addressOf(port), 0, 2, makeBlob(16), kOk),
            makeBlob(16));
  rank1.get();
  EXPECT_EQ(got, makeBlob(16));
}

TEST(RendezvousTest, RanksRetryUntilRankZeroListens) {
  const uint16_t port = freePort();
  std::mutex mu;
  std::condition_variable cv;
  int refusals = 0;
  RendezvousOptions options;
  options.timeout = 5000ms;
  options.retryInterval = 5ms;
  std::string reason;
  options.onRetry = [&](const std::string &why) {
    std::lock_guard<std::mutex> lock(mu);
    if (refusals++ == 0)
      reason = why;
    cv.notify_all();
  };
  std::vector<uint8_t> got;
  Task rank1([&] { got = tcpReceiveBlob(addressOf(port), 1, 2, options); });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return refusals > 0; }));
    EXPECT_NE(reason.find("Connection refused"), std::string::npos) << reason;
  }
  // Rank 1 has been refused at least once: rank 0 starts only now.
  EXPECT_EQ(tcpBroadcastBlob(addressOf(port), 0, 2, makeBlob(128), kOk),
            makeBlob(128));
  rank1.get();
  EXPECT_EQ(got, makeBlob(128));
}

TEST(RendezvousTest, ASilentConnectionHoldsUpNoOne) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  auto silent = RawSocket::connectTo(server.port());
  std::vector<uint8_t> got;
  Task rank1([&] { got = tcpReceiveBlob(server.address(), 1, 2); });
  server.serve(makeBlob(16), kOk);
  rank1.get();
  EXPECT_EQ(got, makeBlob(16));
}

//===----------------------------------------------------------------------===//
// Rank 0's failures
//===----------------------------------------------------------------------===//

TEST(RendezvousTest, PortInUse) {
  RendezvousServer first("tcp://127.0.0.1:0", 2);
  std::string msg =
      commError([&] { RendezvousServer second(addressOf(first.port()), 2); });
  EXPECT_NE(msg.find("rendezvous " + addressOf(first.port())),
            std::string::npos)
      << msg;
  EXPECT_NE(
      msg.find("port " + std::to_string(first.port()) + " is already in use"),
      std::string::npos)
      << msg;
}

TEST(RendezvousTest, TimeoutNamesTheMissingRanks) {
  const int nranks = 4;
  RendezvousServer server("tcp://127.0.0.1:0", nranks);
  std::vector<std::vector<uint8_t>> got(nranks);
  Task rank1([&] { got[1] = tcpReceiveBlob(server.address(), 1, nranks); });
  Task rank3([&] { got[3] = tcpReceiveBlob(server.address(), 3, nranks); });
  std::string msg = commError([&] { server.serve(makeBlob(8), 1000ms); });
  EXPECT_NE(msg.find("rendezvous " + server.address()), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("timeout after 1000 ms: rank 2 of 4 never arrived "
                     "(arrived: 1, 3)"),
            std::string::npos)
      << msg;
  rank1.get();
  rank3.get();
  EXPECT_EQ(got[1], makeBlob(8));
  EXPECT_EQ(got[3], makeBlob(8));
}

TEST(RendezvousTest, TimeoutWithNoRank) {
  RendezvousServer server("tcp://127.0.0.1:0", 5);
  std::string msg = commError([&] { server.serve({}, 300ms); });
  EXPECT_NE(msg.find("ranks 1-4 of 5 never arrived (no rank arrived)"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, GarbageIsRejectedAndTheRanksStillMeet) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  std::pair<uint32_t, std::string> reply;
  Task stranger([&] {
    auto s = RawSocket::connectTo(server.port());
    s->send({'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.',
             '0', '\r', '\n'});
    reply = readReply(*s);
    tcpReceiveBlob(server.address(), 1, 2);
  });
  server.serve(makeBlob(4), kOk);
  stranger.get();
  EXPECT_EQ(reply.first, 1u);
  EXPECT_NE(reply.second.find("not a tp rendezvous hello (bad magic "
                              "0x47455420)"),
            std::string::npos)
      << reply.second;
}

TEST(RendezvousTest, TimeoutNamesRejectedConnections) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  std::string msg = commError([&] {
    Task stranger([&] {
      auto s = RawSocket::connectTo(server.port());
      s->send(words({0xdeadbeef}));
      EXPECT_EQ(readReply(*s).first, 1u);
    });
    server.serve(makeBlob(4), 1000ms);
  });
  EXPECT_NE(msg.find("rank 1 of 2 never arrived"), std::string::npos) << msg;
  EXPECT_NE(msg.find("127.0.0.1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sent no rendezvous hello (it starts with 0xdeadbeef)"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, ARankThatLeavesBeforeAcknowledgingIsMissing) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  std::pair<uint32_t, std::string> reply;
  std::string msg = commError([&] {
    Task quitter([&] {
      auto s = RawSocket::connectTo(server.port());
      s->send(words({kHello, 1, 1, 2}));
      reply = readReply(*s);
    });
    server.serve(makeBlob(4), 1000ms);
  });
  EXPECT_EQ(reply.first, 0u);
  const std::vector<uint8_t> blob = makeBlob(4);
  EXPECT_EQ(reply.second, std::string(blob.begin(), blob.end()));
  EXPECT_NE(msg.find("rank 1 of 2 never arrived"), std::string::npos) << msg;
  EXPECT_NE(msg.find("closed the connection before acknowledging the blob"),
            std::string::npos)
      << msg;
}

/// A hand-made hello must make both sides fail with \p why.
void expectHelloRejected(std::vector<uint8_t> hello, const std::string &why) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  std::pair<uint32_t, std::string> reply;
  Task peer([&] {
    auto s = RawSocket::connectTo(server.port());
    s->send(hello);
    reply = readReply(*s);
  });
  std::string msg = commError([&] { server.serve(makeBlob(4), kOk); });
  peer.get();
  EXPECT_NE(msg.find(why), std::string::npos) << msg;
  EXPECT_EQ(reply.first, 1u);
  EXPECT_NE(reply.second.find(why), std::string::npos) << reply.second;
}

TEST(RendezvousTest, RejectsAnotherProtocolVersion) {
  expectHelloRejected(words({kHello, 99, 1, 2}),
                      "speaks rendezvous protocol version 99, rank 0 speaks 1");
}

TEST(RendezvousTest, RejectsRanksOutOfRange) {
  expectHelloRejected(words({kHello, 1, 0, 2}),
                      "claims rank 0, which is not one of the receiving ranks "
                      "1..1");
  expectHelloRejected(words({kHello, 1, 0xffffffff, 2}), "claims rank -1");
}

TEST(RendezvousTest, RejectsAnotherNranks) {
  RendezvousServer server("tcp://127.0.0.1:0", 2);
  std::string rankMsg;
  Task rank1([&] {
    rankMsg = commError([&] { tcpReceiveBlob(server.address(), 1, 3); });
  });
  std::string msg = commError([&] { server.serve(makeBlob(4), kOk); });
  rank1.get();
  EXPECT_NE(msg.find("says nranks = 3, rank 0 has nranks = 2"),
            std::string::npos)
      << msg;
  EXPECT_NE(rankMsg.find("rendezvous " + server.address() + ": rank 1: "),
            std::string::npos)
      << rankMsg;
  EXPECT_NE(rankMsg.find("rank 0 rejected this rank: rank 1 at 127.0.0.1:"),
            std::string::npos)
      << rankMsg;
  EXPECT_NE(rankMsg.find("says nranks = 3, rank 0 has nranks = 2"),
            std::string::npos)
      << rankMsg;
}

TEST(RendezvousTest, RejectsADuplicateRank) {
  RendezvousServer server("tcp://127.0.0.1:0", 3);
  std::string msg;
  Task rank0([&] { msg = commError([&] { server.serve(makeBlob(4), kOk); }); });
  // The first rank 1 gets the blob; the second one is refused.
  EXPECT_EQ(tcpReceiveBlob(server.address(), 1, 3), makeBlob(4));
  std::string second =
      commError([&] { tcpReceiveBlob(server.address(), 1, 3); });
  rank0.get();
  EXPECT_NE(msg.find("rank 1 arrived twice, from 127.0.0.1:"),
            std::string::npos)
      << msg;
  EXPECT_NE(second.find("rank 0 rejected this rank: rank 1 arrived twice"),
            std::string::npos)
      << second;
}

//===----------------------------------------------------------------------===//
// The receiving ranks' failures
//===----------------------------------------------------------------------===//

TEST(RendezvousTest, ConnectionRefusedUntilTheTimeout) {
  const uint16_t port = freePort();
  RendezvousOptions options;
  options.timeout = 300ms;
  std::string msg =
      commError([&] { tcpReceiveBlob(addressOf(port), 2, 3, options); });
  EXPECT_NE(msg.find("rendezvous " + addressOf(port) +
                     ": rank 2: could not "
                     "connect to rank 0 within 300 ms (last error: "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Connection refused"), std::string::npos) << msg;
}

/// Rank 1 talking to a fake rank 0 that answers \p answer to the hello (and
/// then closes); returns rank 1's error.
std::string againstFakeRankZero(std::function<void(RawSocket &)> answer,
                                std::chrono::milliseconds timeout = kOk) {
  uint16_t port = 0;
  auto listener = RawSocket::listenAny(port);
  Task fake([&] {
    auto peer = listener->accept();
    EXPECT_EQ(peer->receive(16).size(), 16u);
    answer(*peer);
  });
  RendezvousOptions options;
  options.timeout = timeout;
  std::string msg =
      commError([&] { tcpReceiveBlob(addressOf(port), 1, 2, options); });
  fake.get();
  return msg;
}

TEST(RendezvousTest, RankZeroSendsGarbage) {
  std::string msg = againstFakeRankZero([](RawSocket &s) {
    s.send({'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ', '4', '0', '0', ' ',
            'B', 'a', 'd'});
  });
  EXPECT_NE(msg.find("sent garbage instead of a rendezvous reply (it starts "
                     "with 0x48545450)"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, RankZeroAnnouncesAHugeBlob) {
  std::string msg = againstFakeRankZero(
      [](RawSocket &s) { s.send(words({kReply, 1, 0, 0xffffffff})); });
  EXPECT_NE(msg.find("announced 4294967295 bytes, more than the limit"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, RankZeroClosesWithoutReplying) {
  std::string msg = againstFakeRankZero([](RawSocket &) {});
  EXPECT_NE(msg.find("closed the connection before replying"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, RankZeroClosesInTheMiddleOfTheBlob) {
  std::string msg = againstFakeRankZero([](RawSocket &s) {
    std::vector<uint8_t> reply = words({kReply, 1, 0, 128});
    reply.resize(reply.size() + 100);
    s.send(reply);
  });
  EXPECT_NE(msg.find("closed the connection before replying"),
            std::string::npos)
      << msg;
}

TEST(RendezvousTest, RankZeroNeverReplies) {
  // The fake holds the connection open until rank 1 gives up and closes it.
  std::string msg = againstFakeRankZero(
      [](RawSocket &s) { EXPECT_TRUE(s.receive(1).empty()); }, 300ms);
  EXPECT_NE(msg.find("timeout after 300 ms waiting for the reply"),
            std::string::npos)
      << msg;
}
