// `supervised no|upstart|systemd|auto`, as valkey.conf: tells a service manager when the
// server is ready and when it stops. systemd gets sd_notify messages (READY=1, STATUS=...,
// STOPPING=1) as datagrams on $NOTIFY_SOCKET, written here without libsystemd; upstart gets
// the process stopping itself (SIGSTOP) once ready. auto picks systemd when NOTIFY_SOCKET is
// set, else upstart when UPSTART_JOB is. Log lines and messages are redis-server 7.0's.
#pragma once

#include <string>

namespace vireo {

// Resolves the directive's value against the environment and logs what Valkey logs. Once, at
// start-up, before SupervisorStatus and the others.
void StartSupervision(const std::string& mode);
// What INFO's process_supervised shows: "systemd", "upstart" or "no".
const char* SupervisionName();
// systemd only: a STATUS= line for `systemctl status` ("Vireo is loading...").
void SupervisorStatus(const std::string& status);
// The listeners are open and the data loaded.
void SupervisorReady();
// Shutdown has begun (systemd: STOPPING=1).
void SupervisorStopping();
// One sd_notify datagram to a socket path ('@' first: Linux's abstract namespace). False with
// the reason when it cannot be sent.
bool SendNotify(const std::string& socket_path, const std::string& message, std::string* error);

}  // namespace vireo
