//===- Rendezvous.cpp - TCP rendezvous to share a blob ----------*- C++ -*-===//
//
// Rank 0 serves every connection from one poll loop over non-blocking
// sockets, so that a silent or hostile peer holds up no one and every wait
// ends at the caller's deadline. The wire protocol, integers big-endian:
//
//   hello  rank r -> rank 0   "TPRH" version rank nranks           16 bytes
//   reply  rank 0 -> rank r   "TPRR" version status length payload
//                             (status 0: the blob; else the reason rank r
//                             was rejected)
//   ack    rank r -> rank 0   "TPRA" rank                            8 bytes
//
// The ack lets rank 0 return only once every rank holds the blob.
//
//===----------------------------------------------------------------------===//

#include "tp/Runtime/Rendezvous.h"

#include "tp/Runtime/Communicator.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

using namespace mlir::tp::runtime;
using Clock = std::chrono::steady_clock;

namespace {
constexpr uint32_t kHelloMagic = 0x54505248; // "TPRH"
constexpr uint32_t kReplyMagic = 0x54505252; // "TPRR"
constexpr uint32_t kAckMagic = 0x54505241;   // "TPRA"
constexpr uint32_t kVersion = 1;
constexpr size_t kHelloSize = 16, kReplyHeaderSize = 16, kAckSize = 8;
constexpr uint32_t kStatusOk = 0, kStatusRejected = 1;
/// The longest rejection reason a rank accepts.
constexpr size_t kMaxReason = 4096;
/// Connections rank 0 holds that are not (yet) a known rank; beyond this the
/// oldest is dropped, so that a flood cannot exhaust the descriptors.
constexpr size_t kMaxStrangers = 64;
/// The longest one connection attempt may take before the next address is
/// tried (a black-holed IPv6 route must not use up the whole timeout).
constexpr std::chrono::milliseconds kConnectAttempt(2000);
/// How many rejected connections a timeout message lists.
constexpr size_t kMaxNotes = 8;

void put32(uint8_t *p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

uint32_t get32(const uint8_t *p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
         (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

/// strerror is not guaranteed thread-safe; this is.
std::string errorText(int err) { return std::system_category().message(err); }

/// An owned file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd &operator=(Fd &&other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset() {
    // Linux releases the descriptor even when close fails with EINTR, so it
    // is never retried.
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  int fd_ = -1;
};

/// The end of a call's time budget; no end for a zero timeout.
class Deadline {
public:
  explicit Deadline(std::chrono::milliseconds timeout)
      : limited_(timeout.count() > 0),
        at_(deadlineAfter(Clock::now(), timeout)) {}
  bool expired() const { return limited_ && Clock::now() >= at_; }
  /// A poll timeout: the time left rounded up, at most \p cap ms (cap -1:
  /// no cap); -1 (forever) when neither limits it.
  int pollMs(long long cap = -1) const {
    long long ms = cap;
    if (limited_) {
      long long left =
          std::chrono::ceil<std::chrono::milliseconds>(at_ - Clock::now())
              .count();
      left = std::max<long long>(left, 0);
      ms = cap < 0 ? left : std::min(cap, left);
    }
    return static_cast<int>(std::min<long long>(ms, INT_MAX));
  }

private:
  bool limited_;
  Clock::time_point at_;
};

std::string msText(std::chrono::milliseconds timeout) {
  return std::to_string(timeout.count()) + " ms";
}

/// Polls one descriptor for \p events until the deadline; false on timeout.
bool waitFor(int fd, short events, const Deadline &deadline,
             const std::string &prefix) {
  for (;;) {
    if (deadline.expired())
      return false;
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, deadline.pollMs());
    if (n > 0)
      return true;
    if (n < 0 && errno != EINTR)
      throw CommError(prefix + "poll failed: " + errorText(errno));
  }
}

/// "host:port" or "[v6]:port" of a socket address.
std::string endpointName(const sockaddr *sa, socklen_t len) {
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (::getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "(unknown address)";
  if (sa->sa_family == AF_INET6)
    return std::string("[") + host + "]:" + serv;
  return std::string(host) + ":" + serv;
}

std::string peerName(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (::getpeername(fd, reinterpret_cast<sockaddr *>(&ss), &len) != 0)
    return "(unknown peer)";
  return endpointName(reinterpret_cast<sockaddr *>(&ss), len);
}

/// The result of getaddrinfo, freed on destruction.
struct AddrList {
  addrinfo *head = nullptr;
  AddrList() = default;
  AddrList(const AddrList &) = delete;
  AddrList &operator=(const AddrList &) = delete;
  ~AddrList() {
    if (head)
      ::freeaddrinfo(head);
  }
};

/// Resolves \p addr for TCP (\p passive: to bind, where an empty host means
/// every interface).
void resolve(const RendezvousAddress &addr, bool passive, AddrList &list,
             const std::string &prefix) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  std::string port = std::to_string(addr.port);
  int rc = ::getaddrinfo(addr.host.empty() ? nullptr : addr.host.c_str(),
                         port.c_str(), &hints, &list.head);
  if (rc != 0) {
    std::string why = rc == EAI_SYSTEM ? errorText(errno) : gai_strerror(rc);
    throw CommError(prefix + "cannot resolve host '" + addr.host + "': " + why);
  }
}

uint16_t portOf(const sockaddr_storage &ss) {
  if (ss.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6 &>(ss).sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in &>(ss).sin_port);
}

void setPort(sockaddr_storage &ss, uint16_t port) {
  if (ss.ss_family == AF_INET6)
    reinterpret_cast<sockaddr_in6 &>(ss).sin6_port = htons(port);
  else
    reinterpret_cast<sockaddr_in &>(ss).sin_port = htons(port);
}

/// "1, 3, 5-9": a sorted list of ranks, runs collapsed.
std::string rankList(const std::vector<int> &ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    if (!out.empty())
      out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i)
      out += (j == i + 1 ? ", " : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::vector<uint8_t> replyMessage(uint32_t status, const uint8_t *payload,
                                  size_t size) {
  std::vector<uint8_t> out(kReplyHeaderSize + size);
  put32(out.data(), kReplyMagic);
  put32(out.data() + 4, kVersion);
  put32(out.data() + 8, status);
  put32(out.data() + 12, static_cast<uint32_t>(size));
  if (size)
    std::memcpy(out.data() + kReplyHeaderSize, payload, size);
  return out;
}

std::vector<uint8_t> rejection(std::string reason) {
  if (reason.size() > kMaxReason)
    reason.resize(kMaxReason);
  return replyMessage(kStatusRejected,
                      reinterpret_cast<const uint8_t *>(reason.data()),
                      reason.size());
}
} // namespace

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

std::string RendezvousAddress::str() const {
  std::string h = host.empty() ? "*" : host;
  if (h.find(':') != std::string::npos)
    h = "[" + h + "]";
  return "tcp://" + h + ":" + std::to_string(port);
}

RendezvousAddress
mlir::tp::runtime::parseRendezvousAddress(const std::string &text) {
  // The text may come from anywhere: quote it with control bytes escaped.
  auto printable = [](const std::string &str) {
    std::string out;
    for (char c : str) {
      if (c >= 0x20 && c < 0x7f) {
        out += c;
        continue;
      }
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
      out += buf;
    }
    return out;
  };
  auto fail = [&](const std::string &why) {
    throw std::invalid_argument("bad rendezvous address '" + printable(text) +
                                "': " + why + " (expected tcp://HOST:PORT)");
  };
  std::string rest = text;
  size_t scheme = rest.find("://");
  if (scheme != std::string::npos) {
    if (rest.compare(0, scheme, "tcp") != 0)
      fail("unsupported scheme '" + printable(rest.substr(0, scheme)) + "'");
    rest.erase(0, scheme + 3);
  }
  if (rest.empty())
    fail("no host and port");

  RendezvousAddress addr;
  std::string port;
  if (rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string::npos)
      fail("no ']' after the IPv6 address");
    addr.host = rest.substr(1, close - 1);
    if (addr.host.find(':') == std::string::npos)
      fail("'" + printable(addr.host) + "' in brackets is not an IPv6 address");
    for (char c : addr.host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != ':' &&
          c != '.' && c != '%' && c != '-' && c != '_')
        fail("invalid character '" + printable(std::string(1, c)) +
             "' in IPv6 address");
    if (close + 1 >= rest.size() || rest[close + 1] != ':')
      fail("no ':PORT' after the IPv6 address");
    port = rest.substr(close + 2);
  } else {
    size_t colon = rest.rfind(':');
    if (colon == std::string::npos)
      fail("no ':PORT'");
    addr.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (addr.host.find(':') != std::string::npos)
      fail("an IPv6 address needs brackets, as in tcp://[::1]:29500");
    if (addr.host == "*")
      addr.host.clear();
    for (char c : addr.host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' &&
          c != '-' && c != '_')
        fail("invalid character '" + printable(std::string(1, c)) +
             "' in host '" + printable(addr.host) + "'");
  }
  if (port.empty())
    fail("no port after ':'");
  bool digits = port.size() <= 5 &&
                std::all_of(port.begin(), port.end(),
                            [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoul(port) > 65535)
    fail("port '" + printable(port) + "' is not a number from 0 to 65535");
  addr.port = static_cast<uint16_t>(std::stoul(port));
  return addr;
}

//===----------------------------------------------------------------------===//
// Rank 0
//===----------------------------------------------------------------------===//

struct RendezvousServer::Impl {
  RendezvousAddress addr;
  int nranks = 1;
  std::vector<Fd> listeners;
  bool served = false;

  std::string prefix() const { return "rendezvous " + addr.str() + ": "; }
};

RendezvousServer::RendezvousServer(const std::string &address, int nranks)
    : impl_(std::make_unique<Impl>()) {
  Impl &s = *impl_;
  s.addr = parseRendezvousAddress(address);
  if (nranks < 1)
    throw std::invalid_argument(s.prefix() + "nranks must be at least 1, got " +
                                std::to_string(nranks));
  s.nranks = nranks;
  AddrList list;
  resolve(s.addr, /*passive=*/true, list, s.prefix());

  const bool pickPort = s.addr.port == 0;
  std::vector<sockaddr_storage> bound;
  std::string failures;
  bool inUse = false;
  for (addrinfo *ai = list.head; ai; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage))
      continue;
    sockaddr_storage ss{};
    std::memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
    // Every address listens on the same port, the system's pick included.
    setPort(ss, s.addr.port);
    bool duplicate = std::any_of(bound.begin(), bound.end(), [&](auto &b) {
      return std::memcmp(&b, &ss, ai->ai_addrlen) == 0;
    });
    if (duplicate)
      continue;
    std::string where =
        endpointName(reinterpret_cast<sockaddr *>(&ss), ai->ai_addrlen);
    Fd fd(::socket(ai->ai_family,
                   ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                   ai->ai_protocol));
    int err = 0;
    if (!fd) {
      err = errno;
    } else {
      int one = 1;
      ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      // IPv4 and IPv6 get a socket each, so the IPv6 one must not claim the
      // IPv4 port as well.
      if (ai->ai_family == AF_INET6)
        ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
      if (::bind(fd.get(), reinterpret_cast<sockaddr *>(&ss), ai->ai_addrlen) !=
              0 ||
          ::listen(fd.get(), SOMAXCONN) != 0)
        err = errno;
    }
    if (err) {
      // A port the system picked for the first address may be taken on the
      // others; the first one is enough then.
      if (pickPort && !s.listeners.empty())
        continue;
      failures +=
          (failures.empty() ? "" : "; ") + where + ": " + errorText(err);
      inUse |= err == EADDRINUSE;
      continue;
    }
    if (s.addr.port == 0) {
      sockaddr_storage actual{};
      socklen_t len = sizeof(actual);
      if (::getsockname(fd.get(), reinterpret_cast<sockaddr *>(&actual),
                        &len) != 0)
        throw CommError(s.prefix() + "getsockname failed: " + errorText(errno));
      s.addr.port = portOf(actual);
    }
    bound.push_back(ss);
    s.listeners.push_back(std::move(fd));
  }
  // Listening on only some of the addresses while another process holds the
  // port on the others would send some ranks to that process.
  if (inUse)
    throw CommError(s.prefix() + "port " + std::to_string(s.addr.port) +
                    " is already in use (" + failures +
                    "); is another job or an earlier run still listening?");
  if (s.listeners.empty())
    throw CommError(s.prefix() + "cannot listen: " +
                    (failures.empty() ? "no address" : failures));
}

RendezvousServer::~RendezvousServer() = default;

uint16_t RendezvousServer::port() const { return impl_->addr.port; }

std::string RendezvousServer::address() const { return impl_->addr.str(); }

namespace {
/// One accepted connection of rank 0.
struct Conn {
  enum Phase {
    Hello,   ///< reading the hello
    Reply,   ///< writing the reply
    Ack,     ///< reading the ack
    Draining ///< rejected: reply sent, reading until the peer closes
  };
  Fd fd;
  std::string peer;
  Phase phase = Hello;
  std::vector<uint8_t> in;
  std::vector<uint8_t> out;
  size_t sent = 0;
  /// The rank once its hello was accepted; -1 for a stranger.
  int rank = -1;
  Clock::time_point accepted;
};

enum class RankState { Missing, Sending, Done };
} // namespace

void RendezvousServer::serve(const std::vector<uint8_t> &blob,
                             std::chrono::milliseconds timeout) {
  Impl &s = *impl_;
  const std::string prefix = s.prefix();
  if (s.served)
    throw std::logic_error(prefix + "serve() called twice");
  s.served = true;
  if (blob.size() > kMaxRendezvousBlob)
    throw std::invalid_argument(prefix + "blob of " +
                                std::to_string(blob.size()) +
                                " bytes is larger than the limit of " +
                                std::to_string(kMaxRendezvousBlob));
  const std::vector<uint8_t> okReply =
      replyMessage(kStatusOk, blob.data(), blob.size());
  Deadline deadline(timeout);

  std::vector<RankState> state(s.nranks, RankState::Missing);
  std::vector<std::string> rankPeer(s.nranks);
  int done = 0;
  std::deque<Conn> conns;
  std::vector<std::string> notes;
  auto note = [&](std::string what) {
    if (notes.size() < kMaxNotes)
      notes.push_back(std::move(what));
  };
  // A misconfigured tp peer: tell it why (best effort, the reply is small
  // enough for the socket buffer) and fail this rank too.
  auto fatal = [&](Conn &c, const std::string &why) {
    std::vector<uint8_t> reply = rejection(why);
    ssize_t ignored = ::send(c.fd.get(), reply.data(), reply.size(),
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)ignored;
    throw CommError(prefix + why);
  };
  auto startReply = [](Conn &c, std::vector<uint8_t> out) {
    c.out = std::move(out);
    c.sent = 0;
    c.in.clear();
    c.phase = Conn::Reply;
  };

  // Checks the hello of \p c as far as it has arrived.
  auto onHello = [&](Conn &c) {
    if (c.in.size() >= 4 && get32(c.in.data()) != kHelloMagic) {
      note(c.peer + " sent no rendezvous hello (it starts with " +
           hex32(get32(c.in.data())) + ")");
      startReply(c, rejection("not a tp rendezvous hello (bad magic " +
                              hex32(get32(c.in.data())) + ")"));
      return;
    }
    if (c.in.size() < kHelloSize)
      return;
    uint32_t version = get32(c.in.data() + 4);
    if (version != kVersion)
      fatal(c, c.peer + " speaks rendezvous protocol version " +
                   std::to_string(version) + ", rank 0 speaks " +
                   std::to_string(kVersion));
    int32_t rank = static_cast<int32_t>(get32(c.in.data() + 8));
    int32_t nranks = static_cast<int32_t>(get32(c.in.data() + 12));
    std::string who = "rank " + std::to_string(rank) + " at " + c.peer;
    if (nranks != s.nranks)
      fatal(c, who + " says nranks = " + std::to_string(nranks) +
                   ", rank 0 has nranks = " + std::to_string(s.nranks));
    if (rank < 1 || rank >= s.nranks)
      fatal(c, c.peer + " claims rank " + std::to_string(rank) +
                   ", which is not one of the receiving ranks 1.." +
                   std::to_string(s.nranks - 1));
    if (state[rank] != RankState::Missing)
      fatal(c, "rank " + std::to_string(rank) + " arrived twice, from " +
                   rankPeer[rank] + " and from " + c.peer);
    state[rank] = RankState::Sending;
    rankPeer[rank] = c.peer;
    c.rank = rank;
    startReply(c, okReply);
  };

  // Returns false when \p c is finished and is to be closed.
  auto onReadable = [&](Conn &c) -> bool {
    size_t want = c.phase == Conn::Hello ? kHelloSize
                  : c.phase == Conn::Ack ? kAckSize
                                         : 256;
    uint8_t buf[256];
    size_t n = c.phase == Conn::Draining ? sizeof(buf) : want - c.in.size();
    ssize_t k;
    do
      k = ::recv(c.fd.get(), buf, n, 0);
    while (k < 0 && errno == EINTR);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    if (k <= 0) {
      std::string why =
          k == 0 ? "closed the connection" : "failed: " + errorText(errno);
      if (c.phase == Conn::Hello) {
        note(c.peer + " " + why + " after " + std::to_string(c.in.size()) +
             " bytes of its hello");
      } else if (c.phase == Conn::Ack) {
        // It may come back; until then it counts as missing.
        note("rank " + std::to_string(c.rank) + " at " + c.peer + " " + why +
             " before acknowledging the blob");
        state[c.rank] = RankState::Missing;
      }
      return false;
    }
    if (c.phase == Conn::Draining)
      return true;
    c.in.insert(c.in.end(), buf, buf + k);
    if (c.phase == Conn::Hello) {
      onHello(c);
    } else if (c.in.size() == kAckSize) {
      if (get32(c.in.data()) != kAckMagic ||
          static_cast<int32_t>(get32(c.in.data() + 4)) != c.rank) {
        note("rank " + std::to_string(c.rank) + " at " + c.peer +
             " sent a bad acknowledgement");
        state[c.rank] = RankState::Missing;
        return false;
      }
      state[c.rank] = RankState::Done;
      ++done;
      return false;
    }
    return true;
  };

  auto onWritable = [&](Conn &c) -> bool {
    ssize_t k;
    do
      k = ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent,
                 MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    if (k < 0) {
      if (c.rank >= 0) {
        note("rank " + std::to_string(c.rank) + " at " + c.peer +
             ": sending the blob failed: " + errorText(errno));
        state[c.rank] = RankState::Missing;
      }
      return false;
    }
    c.sent += static_cast<size_t>(k);
    if (c.sent < c.out.size())
      return true;
    c.out.clear();
    if (c.rank >= 0) {
      c.phase = Conn::Ack;
    } else {
      // Closing with unread input would reset the connection and could drop
      // the rejection; let the peer close first.
      ::shutdown(c.fd.get(), SHUT_WR);
      c.phase = Conn::Draining;
    }
    return true;
  };

  auto acceptAll = [&](int listener) {
    for (;;) {
      sockaddr_storage ss{};
      socklen_t len = sizeof(ss);
      int fd = ::accept4(listener, reinterpret_cast<sockaddr *>(&ss), &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        int err = errno;
        if (err == EINTR || err == ECONNABORTED)
          continue;
        if (err == EAGAIN || err == EWOULDBLOCK)
          return;
        throw CommError(prefix + "accept failed: " + errorText(err));
      }
      Conn c;
      c.fd = Fd(fd);
      c.peer = endpointName(reinterpret_cast<sockaddr *>(&ss), len);
      c.accepted = Clock::now();
      size_t strangers = std::count_if(
          conns.begin(), conns.end(), [](const Conn &x) { return x.rank < 0; });
      if (strangers >= kMaxStrangers) {
        auto oldest = std::find_if(conns.begin(), conns.end(),
                                   [](const Conn &x) { return x.rank < 0; });
        note("too many connections that are no rank; dropped " + oldest->peer);
        conns.erase(oldest);
      }
      conns.push_back(std::move(c));
    }
  };

  std::vector<pollfd> fds;
  while (done < s.nranks - 1) {
    if (deadline.expired()) {
      std::vector<int> missing, arrived, unacked;
      for (int r = 1; r < s.nranks; ++r)
        (state[r] == RankState::Done      ? arrived
         : state[r] == RankState::Sending ? unacked
                                          : missing)
            .push_back(r);
      std::string msg = prefix + "timeout after " + msText(timeout) + ": ";
      if (!missing.empty())
        msg += (missing.size() == 1 ? "rank " : "ranks ") + rankList(missing) +
               " of " + std::to_string(s.nranks) + " never arrived";
      if (!unacked.empty())
        msg += (missing.empty() ? "" : "; ") +
               std::string(unacked.size() == 1 ? "rank " : "ranks ") +
               rankList(unacked) + " did not acknowledge the blob";
      msg += arrived.empty() ? " (no rank arrived)"
                             : " (arrived: " + rankList(arrived) + ")";
      if (!notes.empty()) {
        msg += "; rejected or lost connections:";
        for (const std::string &n : notes)
          msg += " " + n + ";";
        msg.pop_back();
      }
      throw CommError(msg);
    }
    fds.clear();
    for (const Fd &l : s.listeners)
      fds.push_back({l.get(), POLLIN, 0});
    for (const Conn &c : conns)
      fds.push_back(
          {c.fd.get(), short(c.phase == Conn::Reply ? POLLOUT : POLLIN), 0});
    int n = ::poll(fds.data(), fds.size(), deadline.pollMs());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw CommError(prefix + "poll failed: " + errorText(errno));
    }
    if (n == 0)
      continue;
    // Connections first (their indices shift once new ones are accepted).
    size_t first = s.listeners.size();
    std::vector<bool> keep(conns.size(), true);
    for (size_t i = 0; i < conns.size(); ++i) {
      short ev = fds[first + i].revents;
      if (!ev)
        continue;
      Conn &c = conns[i];
      if (c.phase == Conn::Reply)
        keep[i] = onWritable(c);
      else
        keep[i] = onReadable(c);
    }
    size_t k = 0;
    for (size_t i = 0; i < keep.size(); ++i)
      if (keep[i] && k++ != i)
        conns[k - 1] = std::move(conns[i]);
    conns.resize(k);
    for (size_t i = 0; i < s.listeners.size(); ++i)
      if (fds[i].revents)
        acceptAll(s.listeners[i].get());
  }
}

//===----------------------------------------------------------------------===//
// Ranks 1..n-1
//===----------------------------------------------------------------------===//

namespace {
/// Sends or receives exactly \p size bytes before the deadline. Returns false
/// when the peer closed the connection first (receiving only).
bool transfer(int fd, uint8_t *data, size_t size, bool sending,
              const Deadline &deadline, std::chrono::milliseconds timeout,
              const std::string &prefix, const std::string &what) {
  size_t done = 0;
  while (done < size) {
    ssize_t k = sending ? ::send(fd, data + done, size - done, MSG_NOSIGNAL)
                        : ::recv(fd, data + done, size - done, 0);
    if (k > 0) {
      done += static_cast<size_t>(k);
      continue;
    }
    if (k == 0 && !sending)
      return false;
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!waitFor(fd, sending ? POLLOUT : POLLIN, deadline, prefix))
        throw CommError(prefix + "timeout after " + msText(timeout) + " " +
                        what);
      continue;
    }
    throw CommError(prefix + what + " failed: " + errorText(errno));
  }
  return true;
}

/// Whether \p fd connected to itself: TCP's simultaneous open lets a
/// connection to an unused local port in the ephemeral range pick that very
/// port as its own.
bool selfConnected(int fd) {
  sockaddr_storage a{}, b{};
  socklen_t la = sizeof(a), lb = sizeof(b);
  return ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &la) == 0 &&
         ::getpeername(fd, reinterpret_cast<sockaddr *>(&b), &lb) == 0 &&
         la == lb && std::memcmp(&a, &b, la) == 0;
}

/// Connects to one of \p list's addresses, retrying every address until the
/// deadline while none accepts.
Fd connectToRankZero(const AddrList &list, const Deadline &deadline,
                     const RendezvousOptions &options,
                     const std::string &prefix) {
  std::string lastError = "no address";
  for (;;) {
    for (addrinfo *ai = list.head; ai; ai = ai->ai_next) {
      std::string where = endpointName(ai->ai_addr, ai->ai_addrlen);
      Fd fd(::socket(ai->ai_family,
                     ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                     ai->ai_protocol));
      if (!fd) {
        lastError = where + ": " + errorText(errno);
        continue;
      }
      // An interrupted connect goes on in the background, like EINPROGRESS.
      int err = 0;
      if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 &&
          errno != EINPROGRESS && errno != EINTR)
        err = errno;
      if (!err) {
        Deadline attempt(kConnectAttempt);
        for (;;) {
          pollfd p{fd.get(), POLLOUT, 0};
          int n = ::poll(&p, 1, deadline.pollMs(attempt.pollMs()));
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            throw CommError(prefix + "poll failed: " + errorText(errno));
          if (n == 0)
            err = ETIMEDOUT;
          break;
        }
      }
      if (!err) {
        socklen_t len = sizeof(err);
        if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0)
          err = errno;
      }
      if (!err && selfConnected(fd.get())) {
        lastError = where + ": connected to itself";
        continue;
      }
      if (!err)
        return fd;
      lastError = where + ": " + errorText(err);
      if (deadline.expired())
        break;
    }
    if (deadline.expired())
      throw CommError(prefix + "could not connect to rank 0 within " +
                      msText(options.timeout) + " (last error: " + lastError +
                      "); is rank 0 running and listening there?");
    if (options.onRetry)
      options.onRetry(lastError);
    int pause = deadline.pollMs(options.retryInterval.count());
    if (pause > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(pause));
  }
}
} // namespace

std::vector<uint8_t>
mlir::tp::runtime::tcpReceiveBlob(const std::string &address, int rank,
                                  int nranks,
                                  const RendezvousOptions &options) {
  RendezvousAddress addr = parseRendezvousAddress(address);
  const std::string prefix =
      "rendezvous " + addr.str() + ": rank " + std::to_string(rank) + ": ";
  if (nranks < 2 || rank < 1 || rank >= nranks)
    throw std::invalid_argument(
        prefix +
        "a receiving rank must be in 1..nranks-1 with nranks >= 2, "
        "got rank " +
        std::to_string(rank) + " of " + std::to_string(nranks));
  if (addr.host.empty())
    throw std::invalid_argument(prefix + "needs rank 0's host, not '*'");
  if (addr.port == 0)
    throw std::invalid_argument(prefix + "needs rank 0's port, not 0");
  Deadline deadline(options.timeout);
  AddrList list;
  resolve(addr, /*passive=*/false, list, prefix);
  Fd fd = connectToRankZero(list, deadline, options, prefix);
  const std::string peer = peerName(fd.get());
  auto io = [&](uint8_t *data, size_t size, bool sending,
                const std::string &what) {
    return transfer(fd.get(), data, size, sending, deadline, options.timeout,
                    prefix, what + " (rank 0 at " + peer + ")");
  };
  const std::string closed =
      "rank 0 at " + peer +
      " closed the connection before replying (see rank 0's error)";

  uint8_t hello[kHelloSize];
  put32(hello, kHelloMagic);
  put32(hello + 4, kVersion);
  put32(hello + 8, static_cast<uint32_t>(rank));
  put32(hello + 12, static_cast<uint32_t>(nranks));
  io(hello, sizeof(hello), true, "sending the hello");

  uint8_t header[kReplyHeaderSize];
  if (!io(header, sizeof(header), false, "waiting for the reply"))
    throw CommError(prefix + closed);
  if (get32(header) != kReplyMagic)
    throw CommError(prefix + "rank 0 at " + peer +
                    " sent garbage instead of a rendezvous reply (it starts "
                    "with " +
                    hex32(get32(header)) +
                    "); is another program listening on that port?");
  uint32_t version = get32(header + 4), status = get32(header + 8),
           length = get32(header + 12);
  if (version != kVersion)
    throw CommError(prefix + "rank 0 at " + peer +
                    " speaks rendezvous protocol version " +
                    std::to_string(version) + ", this rank speaks " +
                    std::to_string(kVersion));
  if (status != kStatusOk && status != kStatusRejected)
    throw CommError(prefix + "rank 0 at " + peer + " sent unknown status " +
                    std::to_string(status));
  size_t limit = status == kStatusOk ? kMaxRendezvousBlob : kMaxReason;
  if (length > limit)
    throw CommError(prefix + "rank 0 at " + peer + " announced " +
                    std::to_string(length) + " bytes, more than the limit of " +
                    std::to_string(limit));
  std::vector<uint8_t> payload(length);
  if (!io(payload.data(), length, false, "receiving the reply"))
    throw CommError(prefix + closed);
  if (status == kStatusRejected)
    throw CommError(prefix + "rank 0 rejected this rank: " +
                    std::string(payload.begin(), payload.end()));

  uint8_t ack[kAckSize];
  put32(ack, kAckMagic);
  put32(ack + 4, static_cast<uint32_t>(rank));
  io(ack, sizeof(ack), true, "sending the acknowledgement");
  return payload;
}

std::vector<uint8_t> mlir::tp::runtime::tcpBroadcastBlob(
    const std::string &address, int rank, int nranks,
    const std::vector<uint8_t> &blob, std::chrono::milliseconds timeout) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw std::invalid_argument("rendezvous " + address + ": rank " +
                                std::to_string(rank) + " is not in 0.." +
                                std::to_string(nranks - 1));
  if (nranks == 1) {
    parseRendezvousAddress(address);
    return blob;
  }
  if (rank == 0) {
    RendezvousServer server(address, nranks);
    server.serve(blob, timeout);
    return blob;
  }
  RendezvousOptions options;
  options.timeout = timeout;
  return tcpReceiveBlob(address, rank, nranks, options);
}
