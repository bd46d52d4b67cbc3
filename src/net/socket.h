// Thin platform layer over sockets: listening, accepting, options. Errors come back as
// strings with errno's text, for the log.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace vireo {

// Listens on addr:port (addr "*" = all IPv4, "::*" = all IPv6; a leading '-' marks an
// optional address whose failure is not fatal). Returns the fd or -1 with *error.
int ListenTcp(const std::string& addr, int port, int backlog, std::string* error);
// Listens on a unix socket path with the given permissions (0 = umask default), its file
// given to `group` when one is named (unixsocketgroup).
int ListenUnix(const std::string& path, int perm, int backlog, std::string* error,
               const std::string& group = "");
// Accepts one connection (non-blocking, close-on-exec); -1 when none is pending.
int AcceptConnection(int listen_fd);
// Starts a non-blocking connect to host:port (a name or address); the fd becomes writable
// when it completes (check SO_ERROR). -1 with *error when it cannot even start.
int ConnectTcp(const std::string& host, int port, std::string* error);
void SetNonBlocking(int fd);
// Sends all n bytes on a (possibly non-blocking) socket from a thread that may wait: a full
// socket is waited on in steps of 100 ms. False on an error, when the socket stays full for
// timeout_ms, or when *stop becomes true.
bool SendAllWaiting(int fd, const char* p, size_t n, int64_t timeout_ms,
                    const std::atomic<bool>* stop);
void SetNoDelay(int fd);
void SetKeepAlive(int fd, int interval_s);
// "ip:port" of the peer / local side ("[ip6]:port" for IPv6, "/path:0" for unix sockets), as
// CLIENT LIST shows.
std::string PeerAddress(int fd);
std::string LocalAddress(int fd);
// True if the peer address is loopback (protected mode) or a unix socket.
bool IsLoopbackPeer(int fd);
// Protected mode's decision for a new connection: with protected mode on and no password
// for the default user, only loopback TCP peers and unix sockets are let in (whatever the
// bind addresses, as in Valkey 7+).
bool ProtectedModeDenies(bool protected_mode, bool has_password, bool unix_socket,
                         bool loopback_peer);

}  // namespace vireo
