#include "benchmark/benchmark.h"

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "benchmark/cluster.h"
#include "benchmark/endpoint.h"
#include "benchmark/report.h"
#include "benchmark/request.h"
#include "benchmark/test_suite.h"
#include "benchmark/worker.h"

namespace vireo::benchmark {
namespace {

constexpr int kProgressIntervalMs = 250;

struct Session {
  Options options;
  Handshake handshake;
  ReportContext report;
  std::unique_ptr<ClusterMap> cluster;
  std::vector<Endpoint> targets;  // where client i connects: targets[i % size]
  bool tty = false;
  uint64_t seed = 0;
};

std::string ReadStdin() {
  std::string data;
  char buf[4096];
  while (true) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      perror("Reading from standard input");
      exit(1);
    }
    data.append(buf, n);
  }
  return data;
}

// --cluster: discovers the primaries, prints them as redis-benchmark does and reads each
// one's configuration. Exits on failure.
void SetUpCluster(Session* s) {
  const Endpoint seed = MainEndpoint(s->options);
  s->cluster = std::make_unique<ClusterMap>();
  std::string error;
  std::vector<ClusterNode> primaries;
  if (s->cluster->Fetch(seed, s->options, &error)) {
    primaries = s->cluster->Primaries();
    std::erase_if(primaries, [](const ClusterNode& n) { return n.slots.empty(); });
  }
  if (primaries.empty()) {
    // valkey-benchmark shows a node's error reply before giving up.
    if (error.rfind("Cluster node ", 0) == 0) fprintf(stderr, "%s\n", error.c_str());
    fprintf(stderr, "Failed to fetch cluster configuration from %s\n", seed.Describe().c_str());
    exit(1);
  }
  if (primaries.size() <= 1) {
    fprintf(stderr, "Invalid cluster: %zu node(s).\n", primaries.size());
    exit(1);
  }
  printf("Cluster has %zu primary nodes:\n\n", primaries.size());
  for (size_t i = 0; i < primaries.size(); ++i) {
    const ClusterNode& node = primaries[i];
    printf("Primary %zu: %s %s:%d\n", i, node.name.c_str(), node.ip.c_str(), node.port);
    Endpoint endpoint{node.ip, node.port, ""};
    ServerConfig config;
    if (FetchServerConfig(endpoint, s->options, &config)) {
      s->report.node_configs.emplace_back(config);
    } else {
      fprintf(stderr, "WARNING: Could not fetch node CONFIG %s:%d\n", node.ip.c_str(), node.port);
      s->report.node_configs.emplace_back(std::nullopt);
    }
    s->targets.push_back(endpoint);
  }
  printf("\n");
  fflush(stdout);
  // One thread per primary unless told otherwise, as redis-benchmark does.
  if (s->options.threads == 0) s->options.threads = static_cast<int>(primaries.size());
}

int OpenOrDie(const Session& s, const Endpoint& endpoint) {
  std::string error;
  int fd = OpenBenchmarkConnection(endpoint, s.handshake, &error);
  if (fd < 0) {
    fprintf(stderr, "%s\n", error.c_str());
    exit(1);
  }
  return fd;
}

// -I: opens the connections and keeps them open until killed.
[[noreturn]] void RunIdle(const Session& s) {
  printf("Creating %d idle connections and waiting forever (Ctrl+C when done)\n",
         s.options.clients);
  fflush(stdout);
  std::vector<pollfd> fds;
  for (int i = 0; i < s.options.clients; ++i) {
    fds.push_back({OpenOrDie(s, s.targets[i % s.targets.size()]), POLLIN, 0});
  }
  ProgressLine progress(s.tty);
  int live = static_cast<int>(fds.size());
  while (true) {
    progress.ShowClients(live);
    if (poll(fds.data(), fds.size(), kProgressIntervalMs) <= 0) continue;
    for (pollfd& p : fds) {
      if (p.fd < 0 || p.revents == 0) continue;
      char buf[4096];
      if (read(p.fd, buf, sizeof(buf)) <= 0) {
        close(p.fd);
        p.fd = -1;
        --live;
      }
    }
  }
}

void RunTest(Session& s, const BenchmarkTest& test) {
  const Options& o = s.options;
  RunState run(o, MakeRequestTemplate(test.request), s.handshake, s.cluster.get());
  int worker_count = o.threads > 0 ? o.threads : 1;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < worker_count; ++i) {
    workers.push_back(std::make_unique<Worker>(&run, s.seed + 0x1000193ULL * (i + 1)));
  }
  for (int i = 0; i < o.clients; ++i) {
    const Endpoint& endpoint = s.targets[i % s.targets.size()];
    workers[i % worker_count]->AddClient(OpenOrDie(s, endpoint), endpoint, i);
  }
  ++s.seed;

  const int64_t start_us = MonotonicMicros();
  if (o.requests <= 0) run.Finish(0);  // nothing to send: done already
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });

  ProgressLine progress(s.tty && !o.csv);
  int64_t last_tick_us = start_us;
  int64_t last_finished = 0, last_sum = 0, last_count = 0;
  progress.Show(test.title, 0, 0, 0, 0);
  while (!run.WaitDone(kProgressIntervalMs)) {
    int64_t now = MonotonicMicros();
    int64_t finished = run.finished();
    int64_t sum = 0, count = 0;
    for (auto& w : workers) {
      sum += w->latency_sum_us();
      count += w->latency_count();
    }
    double interval_s = static_cast<double>(now - last_tick_us) / 1e6;
    double total_s = static_cast<double>(now - start_us) / 1e6;
    double avg = count > last_count ? (sum - last_sum) / 1000.0 / (count - last_count) : 0;
    double overall_avg = count > 0 ? sum / 1000.0 / count : 0;
    progress.Show(test.title, (finished - last_finished) / interval_s, finished / total_s, avg,
                  overall_avg);
    last_tick_us = now;
    last_finished = finished;
    last_sum = sum;
    last_count = count;
  }
  for (auto& t : threads) t.join();
  progress.Clear();

  LatencyHistogram latencies = MakeLatencyHistogram(o.precision);
  for (auto& w : workers) latencies.Merge(w->histogram());
  TestResult result{test.title, run.finished(), run.end_us() - start_us, &latencies};
  PrintResult(s.report, result);
}

}  // namespace

int RunBenchmark(Options options) {
  signal(SIGPIPE, SIG_IGN);
  Session s;
  s.options = std::move(options);
  Options& o = s.options;
  if (o.clients < 1) o.clients = 1;
  s.tty = isatty(STDOUT_FILENO);
  s.seed = o.has_seed
               ? o.seed
               : static_cast<uint64_t>(MonotonicMicros()) ^ (static_cast<uint64_t>(getpid()) << 32);
  if (o.keepalive == 0) {
    fprintf(stderr,
            "WARNING: Keepalive disabled. You probably need "
            "'echo 1 > /proc/sys/net/ipv4/tcp_tw_reuse' for Linux and "
            "'sudo sysctl -w net.inet.tcp.msl=1000' for Mac OS X in order "
            "to use a lot of clients/requests\n");
  }
  s.handshake = MakeHandshake(o);
  s.report.options = &o;

  if (o.cluster) {
    SetUpCluster(&s);
  } else {
    Endpoint endpoint = MainEndpoint(o);
    ServerConfig config;
    if (FetchServerConfig(endpoint, o, &config)) {
      s.report.server = config;
    } else {
      fprintf(stderr, "WARNING: Could not fetch server CONFIG\n");
    }
    s.targets.push_back(endpoint);
  }

  if (o.idle) RunIdle(s);
  if (o.csv) PrintCsvHeader();

  if (!o.command.empty()) {
    BenchmarkTest test = CustomTest(o.command);
    if (o.stdin_arg) {
      // -x: standard input is the last argument; the title stays what was typed.
      std::vector<std::string> args = o.command;
      args.push_back(ReadStdin());
      test.request = CustomTest(args).request;
    }
    // The payload a custom command reports is the size of the request itself.
    o.data_size = static_cast<int>(test.request.size());
    do {
      RunTest(s, test);
    } while (o.loop);
    return 0;
  }

  PayloadGenerator payload;
  do {
    std::string data = payload.Next(o.data_size);
    for (const BenchmarkTest& test : DefaultTests(o, data)) RunTest(s, test);
    if (!o.csv) printf("\n");
    fflush(stdout);
  } while (o.loop);
  return 0;
}

}  // namespace vireo::benchmark
