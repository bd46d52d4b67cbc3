#include "cli/session.h"

#include <strings.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vireo::cli {
namespace {

using tools::FormatReply;
using tools::GenericHelp;
using tools::Reply;

bool Is(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

}  // namespace

bool PrintsRawStrings(const std::vector<std::string>& args) {
  const size_t argc = args.size();
  if (argc == 0) return false;
  const std::string& cmd = args[0];
  if (Is(cmd, "info") || Is(cmd, "lolwut")) return true;
  if (argc >= 2 && Is(cmd, "debug")) {
    return Is(args[1], "htstats") || Is(args[1], "htstats-key") || Is(args[1], "client-eviction");
  }
  if (argc >= 2 && Is(cmd, "memory")) return Is(args[1], "malloc-stats") || Is(args[1], "doctor");
  if (argc == 2 && Is(cmd, "cluster")) return Is(args[1], "nodes") || Is(args[1], "info");
  if (argc >= 2 && Is(cmd, "client")) return Is(args[1], "list") || Is(args[1], "info");
  if (argc == 3 && Is(cmd, "latency")) return Is(args[1], "graph");
  if (argc == 2 && Is(cmd, "latency")) return Is(args[1], "doctor");
  if (argc >= 2 && Is(cmd, "proxy")) return Is(args[1], "info");
  return false;
}

Session::Session(Options* options) : options_(options) {}

void Session::Write(const std::string& text) const {
  fwrite(text.data(), 1, text.size(), stdout);
  fflush(stdout);
}

void Session::SetAddress(const std::string& host, int port) {
  options_->host = host;
  options_->port = port;
}

std::string Session::Prompt() const {
  std::string p;
  if (!options_->socket_path.empty()) {
    p = "valkey " + options_->socket_path;  // valkey-cli's unix socket prompt
  } else {
    p = tools::Connection::FormatAddress(options_->host, options_->port);
  }
  if (dbnum_ != 0) p += "[" + std::to_string(dbnum_) + "]";
  if (in_multi_) p += "(TX)";
  return p + "> ";
}

void Session::PrintConnectionError() const {
  if (has_connection_) fprintf(stderr, "Error: %s\n", conn_.error().c_str());
}

bool Session::Connect(bool force, bool quiet) {
  if (has_connection_ && !force) return true;
  if (has_connection_) {
    conn_.Close();
    dbnum_ = 0;
    in_multi_ = false;
  }
  Options& o = *options_;
  // A redirection always names a TCP address, even when we started on a unix socket.
  const bool tcp = o.socket_path.empty() || (o.cluster_mode && reissue_);
  conn_.set_prefer_ipv6(o.prefer_ipv6);
  bool ok = tcp ? conn_.ConnectTcp(o.host, o.port, o.connect_timeout_ms)
                : conn_.ConnectUnix(o.socket_path, o.connect_timeout_ms);
  if (ok && tcp && o.tls.enabled && !conn_.StartTls(o.tls)) {
    ok = false;
    // redis-cli's two messages: a bad file before any connection, a failed handshake after.
    if (!quiet && conn_.error().rfind("SSL_connect failed", 0) != 0) {
      fprintf(stderr, "Could not negotiate a TLS connection: %s\n", conn_.error().c_str());
      quiet = true;
    }
  }
  if (!ok) {
    if (!quiet) {
      if (tcp) {
        fprintf(stderr, "Could not connect to Valkey at %s:%d: %s\n", o.host.c_str(), o.port,
                conn_.error().c_str());
      } else {
        fprintf(stderr, "Could not connect to Valkey at %s: %s\n", o.socket_path.c_str(),
                conn_.error().c_str());
      }
    }
    has_connection_ = false;
    return false;
  }
  has_connection_ = true;
  // Each step stops the chain when it fails; the connection stays usable (commands then get
  // the server's NOAUTH and the like), as with redis-cli.
  return Authenticate() && SelectDb() && SwitchProtocol();
}

bool Session::Authenticate() {
  const Options& o = *options_;
  if (!o.password.has_value()) return true;
  std::vector<std::string> args = {"AUTH"};
  if (o.user.has_value()) args.push_back(*o.user);
  args.push_back(*o.password);
  Reply reply;
  if (!conn_.Command(args, &reply)) {
    fprintf(stderr, "\nI/O error\n");
    return false;
  }
  if (reply.type == Reply::Type::kError) {
    fprintf(stderr, "AUTH failed: %s\n", reply.str.c_str());
    return false;
  }
  return true;
}

bool Session::SelectDb() {
  const int want = options_->dbnum;
  if (want == dbnum_) return true;
  Reply reply;
  if (!conn_.Command({"SELECT", std::to_string(want)}, &reply)) {
    fprintf(stderr, "\nI/O error\n");
    return false;
  }
  if (reply.type == Reply::Type::kError) {
    fprintf(stderr, "SELECT %d failed: %s\n", want, reply.str.c_str());
    return false;
  }
  dbnum_ = want;
  return true;
}

bool Session::SwitchProtocol() {
  if (options_->resp != 3) return true;
  Reply reply;
  if (!conn_.Command({"HELLO", "3"}, &reply)) {
    fprintf(stderr, "\nI/O error\n");
    return false;
  }
  if (reply.type == Reply::Type::kError) {
    fprintf(stderr, "HELLO 3 failed: %s\n", reply.str.c_str());
    return false;
  }
  return true;
}

bool Session::Call(const std::vector<std::string>& args, Reply* reply) {
  if (!has_connection_) return false;
  conn_.Append(args);
  return ReadSkippingPushes(reply);
}

void Session::InitHelp() {
  if (help_.loaded()) return;
  if (!Connect(false, /*quiet=*/true)) return;
  Reply docs;
  conn_.Append({"COMMAND", "DOCS"});
  if (!ReadSkippingPushes(&docs)) {
    conn_.Close();
    has_connection_ = false;
    return;
  }
  if (docs.type != Reply::Type::kError) help_.Load(docs);
}

bool Session::ReadSkippingPushes(Reply* reply) {
  for (;;) {
    if (!conn_.ReadReply(reply)) return false;
    if (reply->type != Reply::Type::kPush || pubsub_) return true;
    // Out-of-band RESP3 pushes (client tracking invalidations...) print as they come when
    // --show-pushes is on (the default on a terminal); otherwise they are dropped.
    if (options_->show_pushes) {
      Write(FormatReply(*reply, options_->output, false, options_->element_delim,
                        options_->reply_delim));
    }
  }
}

void Session::HandleRedirect(const std::string& error) {
  // "MOVED 3999 127.0.0.1:6381" / "ASK 3999 127.0.0.1:6381"
  size_t s1 = error.find(' ');
  size_t s2 = error.find(' ', s1 + 1);
  size_t colon = error.rfind(':');
  if (s1 == std::string::npos || s2 == std::string::npos || colon == std::string::npos ||
      colon < s2) {
    return;
  }
  const int slot = atoi(error.c_str() + s1 + 1);
  options_->host = error.substr(s2 + 1, colon - s2 - 1);
  options_->port = atoi(error.c_str() + colon + 1);
  if (interactive_) {
    printf("-> Redirected to slot [%d] located at %s:%d\n", slot, options_->host.c_str(),
           options_->port);
    fflush(stdout);
  }
  reissue_ = true;
  if (error.compare(0, 4, "ASK ") == 0) send_asking_ = true;
}

bool Session::ReadAndPrint(bool raw_strings) {
  Reply reply;
  if (!ReadSkippingPushes(&reply)) {
    if (shutdown_) {
      // SHUTDOWN closes the connection: that is its success.
      conn_.Close();
      has_connection_ = false;
      return true;
    }
    if (interactive_ && conn_.error_kind() != tools::Connection::ErrorKind::kProtocol) {
      return false;
    }
    PrintConnectionError();
    exit(1);
  }
  last_type_ = reply.type;
  bool output = true;
  if (options_->cluster_mode && reply.type == Reply::Type::kError &&
      (reply.str.compare(0, 6, "MOVED ") == 0 || reply.str.compare(0, 4, "ASK ") == 0)) {
    HandleRedirect(reply.str);
    output = false;
  }
  if (output && reply.type == Reply::Type::kError && options_->exit_on_error && !interactive_) {
    fprintf(stderr, "%s\n", reply.str.c_str());
    error_exit_ = true;
    return false;
  }
  if (output) {
    Write(FormatReply(reply, options_->output, raw_strings, options_->element_delim,
                      options_->reply_delim));
  }
  return true;
}

bool Session::SendCommand(const std::vector<std::string>& args, int64_t repeat) {
  if (!has_connection_) return false;
  const std::string& cmd = args[0];
  const size_t argc = args.size();
  const bool raw_strings = PrintsRawStrings(args);
  if (Is(cmd, "shutdown")) shutdown_ = true;
  if (Is(cmd, "monitor")) monitor_ = true;
  if (Is(cmd, "subscribe") || Is(cmd, "psubscribe") || Is(cmd, "ssubscribe")) pubsub_ = true;

  while (repeat < 0 || repeat-- > 0) {
    conn_.Append(args);
    if (monitor_ || pubsub_) {
      // Streams: print replies until the connection breaks or the server refuses.
      if (pubsub_ && options_->output != OutputMode::kRaw) {
        Write("Reading messages... (press Ctrl-C to quit)\n");
      }
      for (;;) {
        if (!ReadAndPrint(raw_strings)) {
          if (!error_exit_) PrintConnectionError();
          exit(1);
        }
        if (last_type_ == Reply::Type::kError) break;
      }
      monitor_ = pubsub_ = false;
      if (Is(cmd, "monitor")) return true;
      continue;
    }
    if (!ReadAndPrint(raw_strings)) return false;
    if (reissue_) return true;  // sent again to the right node by Issue

    const bool ok = last_type_ != Reply::Type::kError;
    if (Is(cmd, "select") && argc == 2 && ok) {
      options_->dbnum = dbnum_ = atoi(args[1].c_str());
    } else if (Is(cmd, "auth") && (argc == 2 || argc == 3)) {
      SelectDb();
    } else if (Is(cmd, "multi") && argc == 1 && ok) {
      in_multi_ = true;
      pre_multi_dbnum_ = dbnum_;
    } else if (Is(cmd, "exec") && argc == 1 && in_multi_) {
      in_multi_ = false;
      if (last_type_ == Reply::Type::kError || last_type_ == Reply::Type::kNil) {
        options_->dbnum = dbnum_ = pre_multi_dbnum_;
      }
    } else if (Is(cmd, "discard") && argc == 1 && ok) {
      in_multi_ = false;
      options_->dbnum = dbnum_ = pre_multi_dbnum_;
    } else if (Is(cmd, "reset") && argc == 1 && ok) {
      in_multi_ = false;
      options_->dbnum = dbnum_ = 0;
      options_->resp = 2;
    } else if (Is(cmd, "hello")) {
      if (last_type_ == Reply::Type::kMap) options_->resp = 3;
      if (last_type_ == Reply::Type::kArray) options_->resp = 2;
    }
    if (options_->interval_us > 0) usleep(static_cast<useconds_t>(options_->interval_us));
  }
  return true;
}

bool Session::Issue(const std::vector<std::string>& args, int64_t repeat) {
  if (args.empty()) return true;
  if (Is(args[0], "help") || Is(args[0], "?")) {
    std::vector<std::string> topic(args.begin() + 1, args.end());
    if (topic.empty()) {
      Write(GenericHelp("vireo-cli", Version()));
    } else {
      InitHelp();
      Write(help_.Format(topic));
    }
    return true;
  }
  for (;;) {
    if (reissue_ || !has_connection_) {
      if (!Connect(true)) {
        reissue_ = false;
        return false;
      }
    }
    reissue_ = false;
    if (send_asking_) {
      send_asking_ = false;
      Reply reply;
      conn_.Append({"ASKING"});
      if (!ReadSkippingPushes(&reply)) {
        PrintConnectionError();
        conn_.Close();
        has_connection_ = false;
        return false;
      }
      if (reply.type == Reply::Type::kError) {
        fprintf(stderr, "%s\n", reply.str.c_str());
        return false;
      }
    }
    error_exit_ = false;
    if (!SendCommand(args, repeat)) {
      if (!error_exit_) PrintConnectionError();
      conn_.Close();
      has_connection_ = false;
      return false;
    }
    if (options_->cluster_mode && reissue_) continue;
    return true;
  }
}

}  // namespace vireo::cli
